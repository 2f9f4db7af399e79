import { and, eq, isNull, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { rowFromJson } from "@/db/drizzle-internals";
import { prepared } from "@/db/prepared";
import { agentKeys, agents, agentTokenUsage, chatRateLimits, usageHourly } from "@/db/schema";
import { type Caller, callerId } from "@/server/callers";
import type { ChatConfig } from "@/server/frame/config";
import { agentLockShared } from "@/server/kit/agent-lock";
import { type CalledAgent, CHARS_PER_TOKEN } from "@/server/model-call";
import { quotaRowFromJson, reserveMessage, reservePeriods, utcHour } from "@/server/quota";
import { historyRead } from "@/server/threads";
import { RATE_WINDOW_MS } from "./rate-limit";

// The chat's opening, one statement per kind of caller: an admin has no rate limit and others no
// key, so their statements leave those steps out rather than start and skip them on every chat.

export type OpeningKind = "admin" | "key" | "public";

export function openingKind(caller: Caller): OpeningKind {
  return caller.kind === "admin" ? "admin" : caller.kind === "key" ? "key" : "public";
}

/** `inputChars`: the question's and any history the caller sends (counted in the hold). */
export type OpeningRequest = { aid: string; caller: Caller; chatId: string; inputChars: number };

export function openingStatement(db: Db, kind: OpeningKind) {
  return prepared(db, `chat-opening-${kind}`, () =>
    openingQuery(db, kind).prepare(`chat_opening_${kind}`),
  );
}

/** Exported with `openingQuery` for the benchmark's baseline (bench/baseline.ts). */
export function openingValues(
  { aid, caller, chatId, inputChars }: OpeningRequest,
  now: Date,
  config: Pick<ChatConfig, "historyMessages" | "historyMaxChars">,
): Record<string, unknown> {
  return {
    aid,
    caller: callerId(caller),
    ...keyValues(caller),
    chatId,
    limit: config.historyMessages,
    historyMaxChars: config.historyMaxChars,
    inputChars,
    windowOpenAfter: new Date(now.getTime() - RATE_WINDOW_MS).toISOString(),
    ...reservePeriods(now),
  };
}

function keyValues(caller: Caller) {
  return caller.kind === "key" ? { keyId: caller.key.id, keyHash: caller.key.secretHash } : {};
}

// Not the whole row: every column selected is also converted, sent and mapped on every chat.
const AGENT_COLUMNS = {
  aid: agents.aid,
  name: agents.name,
  prompt: agents.prompt,
  model: agents.model,
  temperature: agents.temperature,
  maxToolSteps: agents.maxToolSteps,
  mcpServers: agents.mcpServers,
  modelEndpoints: agents.modelEndpoints,
  paused: agents.paused,
  chatAccess: agents.chatAccess,
  rateLimitRpm: agents.rateLimitRpm,
};

// Who may chat: an admin, a live key of the agent, anyone if it is public; none while paused.
function admissionSteps(db: Db, kind: OpeningKind, { locked }: { locked: boolean }) {
  const p = (name: string) => sql.placeholder(name);
  // A chat that counts takes the agent's lock before any row (server/kit/agent-lock.ts).
  const agent = db.$with("agent").as(
    db
      .select(AGENT_COLUMNS)
      .from(agents)
      .where(
        and(
          eq(agents.aid, p("aid")),
          locked ? sql`(SELECT ${agentLockShared(p("aid"))}) IS NOT NULL` : undefined,
        ),
      ),
  );
  const callerKey = db.$with("caller_key").as(
    db
      .select({ id: agentKeys.id, rateLimitRpm: agentKeys.rateLimitRpm })
      .from(agentKeys)
      .where(
        and(
          eq(agentKeys.id, p("keyId")),
          eq(agentKeys.aid, p("aid")),
          eq(agentKeys.secretHash, p("keyHash")),
          isNull(agentKeys.revokedAt),
          sql`(${agentKeys.expiresAt} IS NULL OR ${agentKeys.expiresAt} > ${p("now")}::timestamptz)`,
        ),
      ),
  );
  const rule = {
    admin: sql`true`,
    key: sql`EXISTS (SELECT 1 FROM caller_key)`,
    public: sql`agent.chat_access = 'public'`,
  }[kind];
  const admitted = db
    .$with("admitted", { ok: sql<number>`admitted_ok`.as("admitted_ok") })
    .as(sql`SELECT 1 AS admitted_ok FROM agent WHERE NOT agent.paused AND ${rule}`);
  return { agent, callerKey, admitted, withKey: kind === "key" };
}

export function admissionStatement(db: Db, kind: OpeningKind) {
  return prepared(db, `chat-admission-${kind}`, () => {
    const { agent, callerKey, admitted, withKey } = admissionSteps(db, kind, { locked: false });
    return db
      .with(agent, ...(withKey ? [callerKey] : []), admitted)
      .select({
        admitted: sql<boolean>`EXISTS (SELECT 1 FROM admitted)`,
        paused: agent.paused,
        name: agent.name,
      })
      .from(agent)
      .prepare(`chat_admission_${kind}`);
  });
}

export function admissionValues(caller: Caller, aid: string, now: Date) {
  return { aid, now: now.toISOString(), ...keyValues(caller) };
}

/**
 * The agent, the caller's admission, one chat in the rate window, one message use reserved with
 * its input's tokens held, the thread's history; each step only if those before it passed.
 * Exported with `openingValues` for the benchmark's baseline, which takes its text.
 */
export function openingQuery(db: Db, kind: OpeningKind) {
  const p = (name: string) => sql.placeholder(name);
  const now = sql`${p("now")}::timestamptz`;
  const { agent, callerKey, admitted, withKey } = admissionSteps(db, kind, { locked: true });
  const rpm = withKey
    ? sql`COALESCE((SELECT rate_limit_rpm FROM caller_key), (SELECT rate_limit_rpm FROM agent))`
    : sql`(SELECT rate_limit_rpm FROM agent)`;
  // Last use, kept to the minute: a busy key does not write on every chat.
  const keyUsed = db.$with("key_used", { id: sql<string>`key_used_id`.as("key_used_id") }).as(
    sql`UPDATE ${agentKeys} SET last_used_at = ${now} WHERE id IN (SELECT id FROM caller_key)
          AND (last_used_at IS NULL OR last_used_at <= ${p("windowOpenAfter")}::timestamptz)
          RETURNING id AS key_used_id`,
  );
  // A window opens with the caller's first chat; a full one refuses (no row) until it is over.
  const rate = db
    .$with("rate", {
      count: sql<number>`rate_count`.as("rate_count"),
      startedMs: sql<number>`rate_window_started_ms`.mapWith(Number).as("rate_window_started_ms"),
    })
    .as(
      sql`INSERT INTO ${chatRateLimits} AS r (aid, caller, window_started_at, count)
          SELECT aid, ${p("caller")}, ${now}, 1 FROM agent
          WHERE ${rpm} IS NOT NULL AND EXISTS (SELECT 1 FROM admitted)
          ON CONFLICT (aid, caller) DO UPDATE SET
            count = CASE WHEN r.window_started_at <= ${p("windowOpenAfter")}::timestamptz
              THEN 1 ELSE r.count + 1 END,
            window_started_at = CASE WHEN r.window_started_at <= ${p("windowOpenAfter")}::timestamptz
              THEN EXCLUDED.window_started_at ELSE r.window_started_at END
          WHERE r.window_started_at <= ${p("windowOpenAfter")}::timestamptz
            OR r.count < ${rpm}
          RETURNING count AS rate_count,
            (extract(epoch FROM window_started_at) * 1000)::float8 AS rate_window_started_ms`,
    );
  const history = db
    .$with("history", {
      json: sql<unknown>`history_json`.as("history_json"),
      chars: sql<number>`history_chars`.as("history_chars"),
    })
    .as(historyRead({ aid: p("aid"), caller: p("caller"), chatId: p("chatId") }, p("limit")));
  const hold = inputHold(db, p("inputChars"), p("historyMaxChars"));
  const { counted, reserved } = reserveMessage(db, {
    aid: p("aid"),
    when:
      kind === "admin"
        ? sql`EXISTS (SELECT 1 FROM admitted)`
        : sql`EXISTS (SELECT 1 FROM admitted) AND (${rpm} IS NULL OR EXISTS (SELECT 1 FROM rate))`,
    hold: sql`(SELECT held_tokens FROM hold)`,
    day: p("day"),
    month: p("month"),
    now: p("now"),
  });
  const steps = [
    agent,
    ...(withKey ? [callerKey, keyUsed] : []),
    admitted,
    ...(kind === "admin" ? [] : [rate]),
    history,
    hold,
    counted,
    reserved,
  ];
  const query = db
    .with(...steps)
    .select({
      agent: {
        aid: agent.aid,
        name: agent.name,
        prompt: agent.prompt,
        model: agent.model,
        temperature: agent.temperature,
        maxToolSteps: agent.maxToolSteps,
        mcpServers: agent.mcpServers,
        modelEndpoints: agent.modelEndpoints,
        paused: agent.paused,
      } satisfies Record<keyof CalledAgent | "paused", unknown>,
      admitted: sql<boolean>`EXISTS (SELECT 1 FROM admitted)`,
      rateLimitRpm: (kind === "admin" ? sql<null>`NULL::int` : sql<number | null>`${rpm}`).mapWith(
        (value: unknown) => (value === null ? null : Number(value)),
      ),
      rateCount: kind === "admin" ? sql<null>`NULL::int` : rate.count,
      rateWindowStartedMs: kind === "admin" ? sql<null>`NULL::float8` : rate.startedMs,
      // The counted row, and the token counters as of the statement's start (none before the
      // first stored reply), each as one JSON column.
      quota: sql`${counted.quota}`.mapWith(quotaRowFromJson),
      tokenUsage:
        sql`(SELECT to_json(u) FROM ${agentTokenUsage} AS u WHERE u.aid = agent.aid)`.mapWith(
          (json: unknown) => rowFromJson(agentTokenUsage, json),
        ),
      reservationId: reserved.id,
      hold: sql<number>`(SELECT held_tokens FROM hold)`.mapWith(Number),
      history: sql<unknown>`(SELECT history_json FROM history)`.mapWith((json: unknown) => json),
    })
    .from(agent)
    .leftJoin(counted, sql`true`)
    .leftJoin(reserved, sql`true`);
  return kind === "admin" ? query : query.leftJoin(rate, sql`true`);
}

/**
 * The tokens a chat holds against the token budgets while in flight: its input (instructions,
 * `inputChars`, at most CHAT_HISTORY_MAX_CHARS of history) at CHARS_PER_TOKEN characters a
 * token, as a reply's input is estimated when the provider reports none. The stored reply's usage
 * replaces it.
 */
function inputHold(db: Db, inputChars: SQLWrapper, historyMaxChars: SQLWrapper) {
  // systemPrompt's length: "You are <name>." and, with a prompt, a blank line and the prompt.
  const instructionChars = sql`char_length(agent.name) + CASE WHEN coalesce(agent.prompt, '') = ''
      THEN 9 ELSE 11 + char_length(agent.prompt) END`;
  return db.$with("hold", { tokens: sql<number>`held_tokens`.as("held_tokens") }).as(
    sql`SELECT GREATEST(1, ceil((${inputChars}::bigint + ${instructionChars}
        + least(${historyMaxChars}::bigint, (SELECT history_chars FROM history)))::numeric
        / ${sql.raw(String(CHARS_PER_TOKEN))}))::bigint AS held_tokens
      FROM agent`,
  );
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
