import { and, eq, getTableColumns, isNull, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { prepared } from "@/db/prepared";
import {
  type AgentQuotaRow,
  agentKeys,
  agents,
  agentTokenUsage,
  chatRateLimits,
  usageHourly,
} from "@/db/schema";
import { type Caller, callerId } from "@/server/callers";
import type { ChatConfig } from "@/server/frame/config";
import type { Clock } from "@/server/kit/clock";
import { type CalledAgent, CHARS_PER_TOKEN } from "@/server/model-call";
import { log } from "@/server/observability";
import type { ChatTurn } from "@/server/providers";
import {
  type LimitRefusal,
  noticeLimitsReached,
  type QuotaExceeded,
  quotaKeptChanging,
  reserveMessage,
  reservePeriods,
  utcHour,
  whyRefused,
  withTokenUsage,
} from "@/server/quota";
import { historyFromJson, historyJson } from "@/server/threads";
import { RATE_WINDOW_MS, type RateLimit, rateLimitAfter } from "./rate-limit";

/** A chat that may go to the model: its use is reserved (server/quota) as `reservationId`. */
export type OpenedChat = {
  outcome: "opened";
  agent: CalledAgent;
  quotaRow: AgentQuotaRow;
  reservationId: number;
  history: ChatTurn[];
  rateLimit: RateLimit | null;
};

export type Opening =
  | OpenedChat
  | { outcome: "not_found" }
  | { outcome: "paused" }
  | { outcome: "key_required" | "key_invalid" }
  | { outcome: "rate_limited"; rateLimit: RateLimit }
  | { outcome: "quota_exceeded"; exceeded: QuotaExceeded; rateLimit: RateLimit | null };

/**
 * What a chat opens with. `inputChars`: the characters of the question and of any history the
 * caller sends (a completion's conversation), which with the agent's instructions and the
 * thread's stored history make the input its hold against the token budgets is estimated from.
 */
export type OpeningRequest = { aid: string; caller: Caller; chatId: string; inputChars: number };

/**
 * Everything a chat needs before its model call, in one statement: the agent, the caller's
 * admission, one chat in the rate-limit window, one message use reserved with its input's tokens
 * held, the thread's history. Each step runs only if those before it passed, so a refused chat
 * counts nothing after its refusal; one statement means fewer round trips, and one queued query
 * per chat in an outage.
 */
export async function openChat(
  { db, clock }: { db: Db; clock: Clock },
  request: OpeningRequest,
  config: Pick<ChatConfig, "historyMessages" | "historyMaxChars">,
): Promise<Opening> {
  const { aid, caller } = request;
  for (let attempt = 0; ; attempt++) {
    const now = clock.now();
    const [row] = await openingStatement(db).execute(openingValues(request, now, config));
    // No agent in the snapshot: nothing was counted (its quota and rate rows are written after it).
    if (!row) return { outcome: "not_found" };
    // Paused: refused whoever asks (admitted is false for it too, so nothing was counted).
    if (row.agent.paused) return { outcome: "paused" };
    if (!row.admitted) return { outcome: notAdmitted(caller) };
    const limit = caller.kind === "admin" ? null : row.rateLimitRpm;
    const rateLimit =
      limit === null
        ? null
        : rateLimitAfter(limit, now, {
            counted:
              row.rateCount === null
                ? null
                : { count: row.rateCount, startedMs: row.rateWindowStartedMs },
            prior:
              row.priorCount === null
                ? null
                : { count: row.priorCount, startedMs: row.priorWindowStartedMs },
          });
    if (rateLimit && row.rateCount === null) return { outcome: "rate_limited", rateLimit };
    if (row.quota && row.reservationId !== null) {
      return {
        outcome: "opened",
        agent: row.agent,
        quotaRow: withTokenUsage(row.quota, row.tokenUsage),
        reservationId: row.reservationId,
        history: historyFromJson(row.history, config),
        rateLimit,
      };
    }
    // Say which limit refused, from the row as it is now. None if a use was given back meanwhile:
    // then the chat is tried again (and counted in the rate window again, rarely).
    const refused = (await whyRefused(db, [aid], "message", now, row.hold)).get(aid);
    if (refused?.notFound) return { outcome: "not_found" };
    if (refused) {
      await noticeRefusal(db, { aid, exceeded: refused.exceeded, row: refused.row }, now);
      return { outcome: "quota_exceeded", exceeded: refused.exceeded, rateLimit };
    }
    if (attempt >= 2) throw quotaKeptChanging(aid);
  }
}

/** Noticed on the refusal path only; a notice that cannot be written leaves the 429 as it is. */
async function noticeRefusal(db: Db, refusal: LimitRefusal, now: Date): Promise<void> {
  await noticeLimitsReached(db, [refusal], now).catch((error: unknown) => {
    log.warn({ err: error, aid: refusal.aid }, "A quota refusal could not be noticed for webhooks");
  });
}

/** Exported with `openingQuery` for the benchmark's baseline (bench/baseline.ts). */
export function openingValues(
  { aid, caller, chatId, inputChars }: OpeningRequest,
  now: Date,
  config: Pick<ChatConfig, "historyMessages" | "historyMaxChars">,
): Record<string, unknown> {
  return {
    aid,
    hour: utcHour(now),
    caller: callerId(caller),
    ...callerValues(caller),
    chatId,
    limit: config.historyMessages,
    historyMaxChars: config.historyMaxChars,
    inputChars,
    windowOpenAfter: new Date(now.getTime() - RATE_WINDOW_MS).toISOString(),
    ...reservePeriods(now),
  };
}

function callerValues(caller: Caller) {
  return {
    callerKind: caller.kind,
    keyId: caller.kind === "key" ? caller.key.id : "",
    keyHash: caller.kind === "key" ? caller.key.secretHash : "",
  };
}

/** Whether the caller may chat with the agent, counting nothing: for HEAD, which answers as GET. */
export async function admissionOf(
  db: Db,
  { aid, caller }: { aid: string; caller: Caller },
  now: Date,
): Promise<"admitted" | "not_found" | "paused" | "key_required" | "key_invalid"> {
  const [row] = await admissionStatement(db).execute({
    aid,
    now: now.toISOString(),
    ...callerValues(caller),
  });
  if (!row) return "not_found";
  if (row.paused) return "paused";
  return row.admitted ? "admitted" : notAdmitted(caller);
}

function notAdmitted(caller: Caller): "key_invalid" | "key_required" {
  return caller.kind === "key" ? "key_invalid" : "key_required";
}

// Who may chat with an agent, as steps shared by the opening and HEAD: an admin, a live agent key
// of the agent, or anyone when it is public, never while it is paused.
function admissionSteps(db: Db) {
  const p = (name: string) => sql.placeholder(name);
  const agent = db.$with("agent").as(
    db
      .select()
      .from(agents)
      .where(eq(agents.aid, p("aid"))),
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
  const admitted = db.$with("admitted", { ok: sql<number>`admitted_ok`.as("admitted_ok") }).as(
    sql`SELECT 1 AS admitted_ok FROM agent WHERE NOT agent.paused AND CASE ${p("callerKind")}::text
          WHEN 'admin' THEN true
          WHEN 'key' THEN EXISTS (SELECT 1 FROM caller_key)
          ELSE agent.chat_access = 'public' END`,
  );
  const rateRule = db.$with("rate_rule", { rpm: sql<number | null>`rule_rpm`.as("rule_rpm") }).as(
    sql`SELECT COALESCE((SELECT rate_limit_rpm FROM caller_key), agent.rate_limit_rpm) AS rule_rpm
        FROM agent`,
  );
  return { agent, callerKey, admitted, rateRule };
}

function admissionStatement(db: Db) {
  return prepared(db, "chat-admission", () => {
    const { agent, callerKey, admitted } = admissionSteps(db);
    return db
      .with(agent, callerKey, admitted)
      .select({ admitted: sql<boolean>`EXISTS (SELECT 1 FROM admitted)`, paused: agents.paused })
      .from(agents)
      .where(eq(agents.aid, sql.placeholder("aid")))
      .prepare("chat_admission");
  });
}

// Not the whole row: every column selected is also converted, sent and mapped on every chat.
const CHAT_AGENT_COLUMNS = {
  aid: agents.aid,
  name: agents.name,
  prompt: agents.prompt,
  model: agents.model,
  temperature: agents.temperature,
  maxToolSteps: agents.maxToolSteps,
  mcpServers: agents.mcpServers,
  paused: agents.paused,
} satisfies Record<keyof CalledAgent | "paused", unknown>;

function openingStatement(db: Db) {
  return prepared(db, "chat-opening", () => openingQuery(db).prepare("chat_opening"));
}

/** Exported with `openingValues` for the benchmark's baseline, which takes its text. */
export function openingQuery(db: Db) {
  const p = (name: string) => sql.placeholder(name);
  const now = sql`${p("now")}::timestamptz`;
  const callerKind = sql`${p("callerKind")}::text`;

  const { agent, callerKey, admitted, rateRule } = admissionSteps(db);
  const rpm = sql`(SELECT rule_rpm FROM rate_rule)`;
  // Last use, kept to the minute: a busy key does not write on every chat.
  const keyUsed = db.$with("key_used", { id: sql<string>`key_used_id`.as("key_used_id") }).as(
    sql`UPDATE ${agentKeys} SET last_used_at = ${now} WHERE id IN (SELECT id FROM caller_key)
          AND (last_used_at IS NULL OR last_used_at <= ${p("windowOpenAfter")}::timestamptz)
          RETURNING id AS key_used_id`,
  );
  // A window opens with the caller's first chat and lasts RATE_WINDOW_MS; a full window
  // refuses (no row returned) until it is over.
  const rate = db
    .$with("rate", {
      count: sql<number>`rate_count`.as("rate_count"),
      startedMs: sql<number>`rate_window_started_ms`.mapWith(Number).as("rate_window_started_ms"),
    })
    .as(
      sql`INSERT INTO ${chatRateLimits} AS r (aid, caller, window_started_at, count)
          SELECT aid, ${p("caller")}, ${now}, 1 FROM agent
          WHERE ${rpm} IS NOT NULL AND ${callerKind} <> 'admin'
            AND EXISTS (SELECT 1 FROM admitted)
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
  // The thread's recent messages, read once: sent to the model, and counted in the hold.
  const history = db
    .$with("history", { json: sql<unknown>`history_json`.as("history_json") })
    .as(
      sql`SELECT ${historyJson({ aid: p("aid"), caller: p("caller"), chatId: p("chatId") }, p("limit"))} AS history_json`,
    );
  const { counted, reserved, row } = reserveMessage(db, {
    aid: p("aid"),
    when: sql`EXISTS (SELECT 1 FROM admitted) AND (
        ${callerKind} = 'admin' OR ${rpm} IS NULL
        OR EXISTS (SELECT 1 FROM rate))`,
    hold: sql`(SELECT held_tokens FROM hold)`,
    day: p("day"),
    month: p("month"),
    now: p("now"),
  });
  // A refusal by the rate limit or a quota is counted in the agent's hour of usage, the one
  // place refusals are kept (usage over time); a refused caller writes nothing else.
  const refused = db.$with("refused", { hour: sql<string>`refused_hour`.as("refused_hour") }).as(
    sql`INSERT INTO ${usageHourly} AS u (aid, hour, refused_quota, refused_rate)
        SELECT aid, ${p("hour")}::timestamptz, CASE WHEN rate_refused THEN 0 ELSE 1 END,
          CASE WHEN rate_refused THEN 1 ELSE 0 END
        FROM (SELECT aid, (${rpm} IS NOT NULL AND ${callerKind} <> 'admin'
            AND NOT EXISTS (SELECT 1 FROM rate)) AS rate_refused FROM agent) AS a
        WHERE EXISTS (SELECT 1 FROM admitted) AND NOT EXISTS (SELECT 1 FROM ${counted})
        ON CONFLICT (aid, hour) DO UPDATE SET refused_quota = u.refused_quota + EXCLUDED.refused_quota,
          refused_rate = u.refused_rate + EXCLUDED.refused_rate
        RETURNING hour AS refused_hour`,
  );
  // The caller's window as it was before this statement, for the headers of a refusal.
  const prior = (column: SQL) =>
    sql`(SELECT ${column} FROM ${chatRateLimits} WHERE aid = ${p("aid")} AND caller = ${p("caller")})`;
  const hold = inputHold(db, p("inputChars"), p("historyMaxChars"));
  return db
    .with(
      agent,
      callerKey,
      keyUsed,
      admitted,
      rateRule,
      rate,
      history,
      hold,
      counted,
      reserved,
      refused,
    )
    .select({
      agent: CHAT_AGENT_COLUMNS,
      admitted: sql<boolean>`EXISTS (SELECT 1 FROM admitted)`,
      rateLimitRpm: sql<number | null>`${rpm}`.mapWith((value: unknown) =>
        value === null ? null : Number(value),
      ),
      rateCount: rate.count,
      rateWindowStartedMs: rate.startedMs,
      priorCount: prior(sql`count`).mapWith(Number),
      priorWindowStartedMs: prior(
        sql`(extract(epoch FROM window_started_at) * 1000)::float8`,
      ).mapWith(Number),
      // The counted row as the UPDATE returned it; all null (so: null) when it counted nothing.
      quota: row,
      // Its token counters, as of the statement's start (null before the first stored reply).
      tokenUsage: getTableColumns(agentTokenUsage),
      reservationId: reserved.id,
      hold: sql<number>`(SELECT held_tokens FROM hold)`.mapWith(Number),
      history: sql<unknown>`(SELECT history_json FROM history)`.mapWith((json: unknown) => json),
    })
    .from(agents)
    .leftJoin(counted, eq(counted.aid, agents.aid))
    .leftJoin(agentTokenUsage, eq(agentTokenUsage.aid, agents.aid))
    .leftJoin(reserved, sql`true`)
    .leftJoin(rate, sql`true`)
    .where(eq(agents.aid, p("aid")));
}

/**
 * The tokens a chat holds against its agent's token budgets while it is in flight: its input
 * estimated at CHARS_PER_TOKEN characters a token, rounded up (at least one), as a reply's input
 * is when the provider reports none. The input is the agent's instructions (systemPrompt), the
 * caller's `inputChars`, and the thread's history, at most CHAT_HISTORY_MAX_CHARS of it (the model
 * may be sent less: the oldest messages are dropped whole). Tool definitions and tool turns are
 * not known yet; the reply's real usage replaces the hold when it is stored.
 */
function inputHold(db: Db, inputChars: SQLWrapper, historyMaxChars: SQLWrapper) {
  const historyChars = sql`(SELECT coalesce(sum(char_length(item->>1)
      + CASE WHEN json_typeof(item->2) = 'array' THEN char_length((item->2)::text) ELSE 0 END), 0)
    FROM json_array_elements((SELECT history_json FROM history)) AS h(item))`;
  // systemPrompt's length: "You are <name>." and, with a prompt, a blank line and the prompt.
  const instructionChars = sql`char_length(agent.name) + CASE WHEN coalesce(agent.prompt, '') = ''
      THEN 9 ELSE 11 + char_length(agent.prompt) END`;
  return db.$with("hold", { tokens: sql<number>`held_tokens`.as("held_tokens") }).as(
    sql`SELECT GREATEST(1, ceil((${inputChars}::bigint + ${instructionChars}
        + least(${historyMaxChars}::bigint, ${historyChars}))::numeric
        / ${sql.raw(String(CHARS_PER_TOKEN))}))::bigint AS held_tokens
      FROM agent`,
  );
}
