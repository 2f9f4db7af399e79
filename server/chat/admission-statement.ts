import { and, eq, isNull, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Db } from "@/db/client";
import { prepared } from "@/db/prepared";
import { agentKeys, agents, chatRateLimits, usageHourly } from "@/db/schema";
import { type Caller, callerId } from "@/server/callers";
import { utcHour } from "@/server/quota";

// Around the chat's opening: whether a caller may chat, counting nothing, and a refusal's counts.

export type OpeningKind = "admin" | "key" | "public";

export function openingKind(caller: Caller): OpeningKind {
  return caller.kind === "admin" ? "admin" : caller.kind === "key" ? "key" : "public";
}

/**
 * Who may chat, given `agent` and `matchedKey` (the live key's id or null): an admin, a key of the
 * agent, anyone if it is public; none while paused.
 */
export function admissionRule(kind: OpeningKind, matchedKey: SQL): SQL {
  const rule = {
    admin: sql`true`,
    key: sql`${matchedKey} IS NOT NULL`,
    public: sql`agent.chat_access = 'public'`,
  }[kind];
  return sql`NOT agent.paused AND ${rule}`;
}

export function admissionStatement(db: Db, kind: OpeningKind) {
  return prepared(db, `chat-admission-${kind}`, () => {
    const p = (name: string) => sql.placeholder(name);
    const key =
      kind === "key"
        ? sql`(SELECT ${agentKeys.id} FROM ${agentKeys} WHERE ${and(
            eq(agentKeys.id, p("keyId")),
            eq(agentKeys.aid, p("aid")),
            eq(agentKeys.secretHash, p("keyHash")),
            isNull(agentKeys.revokedAt),
            sql`(${agentKeys.expiresAt} IS NULL OR ${agentKeys.expiresAt} > ${p("now")}::timestamptz)`,
          )})`
        : sql`NULL`;
    const agent = alias(agents, "agent");
    return db
      .select({
        admitted: sql<boolean>`${admissionRule(kind, key)}`,
        paused: agent.paused,
        name: agent.name,
      })
      .from(agent)
      .where(eq(agent.aid, p("aid")))
      .prepare(`chat_admission_${kind}`);
  });
}

export function admissionValues(caller: Caller, aid: string, now: Date) {
  return { aid, now: now.toISOString(), ...keyValues(caller) };
}

function keyValues(caller: Caller) {
  return caller.kind === "key" ? { keyId: caller.key.id, keyHash: caller.key.secretHash } : {};
}

/** A rate refusal: counted in the agent's hour of usage; the caller's window, for its headers. */
export function rateRefusalStatement(db: Db) {
  return prepared(db, "chat-rate-refusal", () => {
    const p = (name: string) => sql.placeholder(name);
    const counted = db.$with("refusal_counted", {}).as(countRefusal(sql`0`, sql`1`));
    const w = chatRateLimits;
    return db
      .with(counted)
      .select({
        count: w.count,
        startedMs: sql<number>`(extract(epoch FROM ${w.windowStartedAt}) * 1000)::float8`.mapWith(
          Number,
        ),
      })
      .from(w)
      .where(and(eq(w.aid, p("aid")), eq(w.caller, p("caller"))))
      .prepare("chat_rate_refusal");
  });
}

/** A chat a quota refused, counted in the agent's hour of usage. */
export function quotaRefusalStatement(db: Db) {
  return prepared(db, "chat-quota-refusal", () =>
    db
      .with(db.$with("refusal_counted", {}).as(countRefusal(sql`1`, sql`0`)))
      .select({ one: sql<number>`1` })
      .from(sql`(SELECT 1) AS one`)
      .prepare("chat_quota_refusal"),
  );
}

export function refusalValues(aid: string, caller: Caller, now: Date) {
  return { aid, caller: callerId(caller), hour: utcHour(now) };
}

function countRefusal(quota: SQL, rate: SQL): SQL {
  const p = (name: string) => sql.placeholder(name);
  return sql`INSERT INTO ${usageHourly} AS u (aid, hour, refused_quota, refused_rate)
      SELECT aid, ${p("hour")}::timestamptz, ${quota}, ${rate} FROM ${agents}
      WHERE aid = ${p("aid")}
      ON CONFLICT (aid, hour) DO UPDATE SET refused_quota = u.refused_quota + EXCLUDED.refused_quota,
        refused_rate = u.refused_rate + EXCLUDED.refused_rate
      RETURNING hour`;
}
