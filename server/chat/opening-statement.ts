import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { rowFromJson } from "@/db/drizzle-internals";
import { prepared } from "@/db/prepared";
import { agentKeys, agents, agentTokenUsage, chatRateLimits } from "@/db/schema";
import { type Caller, callerId } from "@/server/callers";
import type { ChatConfig } from "@/server/frame/config";
import { agentsLockedShared } from "@/server/kit/agent-lock";
import { storableText } from "@/server/kit/text";
import { type CalledAgent, CHARS_PER_TOKEN } from "@/server/model-call";
import { quotaRowFromJson, reserveMessages, reservePeriods } from "@/server/quota";
import { historyRead } from "@/server/threads";
import { admissionRule, type OpeningKind } from "./admission-statement";
import { RATE_WINDOW_MS } from "./rate-limit";

// Chats' openings in one statement, several of one agent among them; one per kind of caller, as
// an admin has no rate limit and others no key, so their statements leave those steps out.

/** `inputChars`: the question's and any history the caller sends (counted in the hold). */
export type OpeningRequest = { aid: string; caller: Caller; chatId: string; inputChars: number };

/** `several`: for more than one request, whose quota rows it locks in order first. */
export function openingStatement(db: Db, kind: OpeningKind, several: boolean) {
  const name = several ? `${kind}_several` : kind;
  return prepared(db, `chat-opening-${name}`, () =>
    openingQuery(db, kind, several).prepare(`chat_opening_${name}`),
  );
}

/** `requests` as one JSON parameter, a row each (`n` from 1); for the benchmark's baseline too. */
export function openingValues(
  requests: readonly OpeningRequest[],
  now: Date,
  config: Pick<ChatConfig, "historyMessages" | "historyMaxChars">,
): Record<string, unknown> {
  // Made storable first: JSON carries no lone surrogate or NUL that PostgreSQL takes.
  const rows = requests.map(({ aid, caller, chatId, inputChars }, n) => ({
    n: n + 1,
    aid: storableText(aid),
    caller: storableText(callerId(caller)),
    chat_id: storableText(chatId),
    input_chars: inputChars,
    ...(caller.kind === "key"
      ? { key_id: storableText(caller.key.id), key_hash: storableText(caller.key.secretHash) }
      : {}),
  }));
  return {
    openings: JSON.stringify(rows),
    limit: config.historyMessages,
    historyMaxChars: config.historyMaxChars,
    windowOpenAfter: new Date(now.getTime() - RATE_WINDOW_MS).toISOString(),
    ...reservePeriods(now),
  };
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

/**
 * For each request (`n`) whose agent exists: the agent, the caller's admission, one chat in the
 * rate window, one message use reserved with its input's tokens held, the thread's history; each
 * step only if those before it passed. Rows are taken table by table in the agents' order. Of a
 * caller's chats with a rate-limited agent, the first is counted in its window: if it fits, the
 * others are `deferred` to another statement; if not, they are refused with it.
 */
export function openingQuery(db: Db, kind: OpeningKind, several: boolean) {
  const p = (name: string) => sql.placeholder(name);
  const now = sql`${p("now")}::timestamptz`;
  const clause = (name: string, query: SQL) => db.$with(name, {}).as(query);
  const withKey = kind === "key";
  const noRate = kind === "admin";
  // A lone request: a range the planner guesses one row passes (all do), or it hashes every join.
  // Several keep its guess of 100, or each join of their steps is a loop over the other's rows.
  const requests = sql`SELECT * FROM json_to_recordset(${p("openings")}::text::json) AS r(n integer,
      aid text, caller text, chat_id text, input_chars bigint, key_id text, key_hash text)
    ${several ? sql`` : sql`WHERE r.n >= 1 AND r.n <= 2147483647`}`;
  // Each agent's lock before any row (server/kit/agent-lock.ts): a one-time filter.
  const agent = db.$with("agent").as(
    db
      .select({
        ...AGENT_COLUMNS,
        n: sql<number>`r.n`.as("n"),
        caller: sql<string>`r.caller`.as("caller"),
        chatId: sql<string>`r.chat_id`.as("chat_id"),
        inputChars: sql<number>`r.input_chars`.as("input_chars"),
        keyId: sql<string>`r.key_id`.as("key_id"),
        keyHash: sql<string>`r.key_hash`.as("key_hash"),
      })
      .from(sql`requests AS r`)
      .innerJoin(agents, sql`${agents.aid} = r.aid`)
      .where(agentsLockedShared(sql`SELECT aid FROM requests`)),
  );
  const k = agentKeys;
  const callerKey = sql`SELECT agent.n, ${k.id} AS id, ${k.rateLimitRpm} AS rate_limit_rpm
      FROM agent JOIN ${k} ON ${k.id} = agent.key_id AND ${k.aid} = agent.aid
        AND ${k.secretHash} = agent.key_hash
      WHERE ${k.revokedAt} IS NULL AND (${k.expiresAt} IS NULL OR ${k.expiresAt} > ${now})`;
  // Last use, kept to the minute: a busy key does not write on every chat.
  const keyUsed = sql`UPDATE ${k} SET last_used_at = ${now}
      WHERE id IN (SELECT id FROM caller_key)
        AND (last_used_at IS NULL OR last_used_at <= ${p("windowOpenAfter")}::timestamptz)
      RETURNING id`;
  const rpm = {
    admin: sql`NULL::integer`,
    key: sql`COALESCE(caller_key.rate_limit_rpm, agent.rate_limit_rpm)`,
    public: sql`agent.rate_limit_rpm`,
  }[kind];
  const admitted = sql`SELECT agent.n, agent.aid, agent.caller, ${rpm} AS rpm FROM agent
      ${withKey ? sql`LEFT JOIN caller_key ON caller_key.n = agent.n` : sql``}
      WHERE ${admissionRule(kind, sql`caller_key.id`)}`;
  // A window counts one chat a statement: a caller's first with each rate-limited agent.
  const first = several
    ? sql`SELECT DISTINCT ON (a.aid, a.caller) a.n, a.aid, a.caller, a.rpm FROM admitted AS a
        WHERE a.rpm IS NOT NULL ORDER BY a.aid, a.caller, a.n`
    : sql`SELECT a.n, a.aid, a.caller, a.rpm FROM admitted AS a WHERE a.rpm IS NOT NULL`;
  // A window opens with the caller's first chat; a full one refuses (no row) until it is over.
  const w = p("windowOpenAfter");
  const rate = sql`INSERT INTO ${chatRateLimits} AS r (aid, caller, window_started_at, count)
      SELECT f.aid, f.caller, ${now}, 1 FROM first AS f ORDER BY f.aid, f.caller
      ON CONFLICT (aid, caller) DO UPDATE SET
        count = CASE WHEN r.window_started_at <= ${w}::timestamptz THEN 1 ELSE r.count + 1 END,
        window_started_at = CASE WHEN r.window_started_at <= ${w}::timestamptz
          THEN EXCLUDED.window_started_at ELSE r.window_started_at END
      WHERE r.window_started_at <= ${w}::timestamptz
        OR r.count < (SELECT f.rpm FROM first AS f WHERE f.aid = r.aid AND f.caller = r.caller)
      RETURNING aid, caller, count AS rate_count,
        (extract(epoch FROM window_started_at) * 1000)::float8 AS rate_window_started_ms`;
  const rated = sql`SELECT f.n, rate.rate_count, rate.rate_window_started_ms FROM first AS f
      JOIN rate ON rate.aid = f.aid AND rate.caller = f.caller`;
  const history = sql`SELECT agent.n, h.history_json, ${inputHold(p("historyMaxChars"))} AS held_tokens
      FROM agent, LATERAL (${historyRead({ aid: sql`agent.aid`, caller: sql`agent.caller`, chatId: sql`agent.chat_id` }, p("limit"))}) AS h`;
  // Counted where admitted and, with a rate limit, within it.
  const eligible = noRate
    ? sql`SELECT n, aid FROM admitted`
    : sql`SELECT n, aid FROM admitted WHERE rpm IS NULL OR n IN (SELECT n FROM rated)`;
  const reserving = reserveMessages(db, {
    uses: sql`uses`,
    lone: !several,
    day: p("day"),
    month: p("month"),
    now: p("now"),
  });
  const steps = [
    clause("requests", requests),
    agent,
    ...(withKey ? [clause("caller_key", callerKey), clause("key_used", keyUsed)] : []),
    clause("admitted", admitted),
    ...(noRate ? [] : [clause("first", first), clause("rate", rate), clause("rated", rated)]),
    clause("history", history),
    clause("eligible", eligible),
    clause(
      "uses",
      sql`SELECT e.n, e.aid, history.held_tokens FROM eligible AS e
        JOIN history ON history.n = e.n`,
    ),
    ...reserving,
  ];
  const query = db
    .with(...steps)
    .select({
      n: sql<number>`agent.n`.mapWith(Number),
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
      admitted: sql<boolean>`a.n IS NOT NULL`,
      deferred: (noRate
        ? sql<boolean>`false`
        : sql<boolean>`a.rpm IS NOT NULL AND a.n NOT IN (SELECT n FROM first)
            AND (a.aid, a.caller) IN (SELECT aid, caller FROM rate)`
      ).mapWith(Boolean),
      rateLimitRpm: sql<number | null>`a.rpm`.mapWith(numberOrNull),
      rateCount: (noRate ? sql<null>`NULL::int` : sql<number | null>`rated.rate_count`).mapWith(
        numberOrNull,
      ),
      rateWindowStartedMs: (noRate
        ? sql<null>`NULL::float8`
        : sql<number | null>`rated.rate_window_started_ms`
      ).mapWith(numberOrNull),
      // The counted row, after this chat's agent counted its chats in the statement, and the
      // token counters as of the statement's start, each as JSON; then the uses after this one.
      quota: sql`opened.quota_json`.mapWith(quotaRowFromJson),
      usesAfter: sql<number | null>`opened.uses_after`.mapWith(numberOrNull),
      tokenUsage:
        sql`(SELECT to_json(u) FROM ${agentTokenUsage} AS u WHERE u.aid = agent.aid)`.mapWith(
          (json: unknown) => rowFromJson(agentTokenUsage, json),
        ),
      reservationId: sql<number | null>`opened.reservation_id`.mapWith(numberOrNull),
      hold: sql<number>`history.held_tokens`.mapWith(Number),
      history: sql<unknown>`history.history_json`.mapWith((json: unknown) => json),
    })
    .from(agent)
    .leftJoin(sql`admitted AS a`, sql`a.n = agent.n`)
    .leftJoin(sql`history`, sql`history.n = agent.n`)
    .leftJoin(sql`opened`, sql`opened.n = agent.n`);
  return noRate ? query : query.leftJoin(sql`rated`, sql`rated.n = agent.n`);
}

const numberOrNull = (value: unknown) => (value === null ? null : Number(value));

/**
 * The tokens a chat holds against the budgets while in flight, until its usage replaces them: its
 * input (instructions, `input_chars`, history `h` up to CHAT_HISTORY_MAX_CHARS) as estimated
 * replies'.
 */
function inputHold(historyMaxChars: SQLWrapper): SQL {
  // systemPrompt's length: "You are <name>." and, with a prompt, a blank line and the prompt.
  const instructionChars = sql`char_length(agent.name) + CASE WHEN coalesce(agent.prompt, '') = ''
      THEN 9 ELSE 11 + char_length(agent.prompt) END`;
  return sql`GREATEST(1, ceil((agent.input_chars + ${instructionChars}
        + least(${historyMaxChars}::bigint, h.history_chars))::numeric
        / ${sql.raw(String(CHARS_PER_TOKEN))}))::bigint`;
}
