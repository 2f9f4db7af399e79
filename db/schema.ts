import { getViewSelectedFields, sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  date,
  doublePrecision,
  foreignKey,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  pgView,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import {
  CHAT_ACCESS,
  DEPLOYMENT_STATUSES,
  type DeploymentStatus,
  REQUEST_VIAS,
  WEBHOOK_DELIVERY_STATUSES,
} from "./enums";

const timestamptz = () => timestamp({ withTimezone: true, mode: "date" });

/**
 * An MCP server of an agent as stored: each header's value encrypted (`enc`, AES-GCM, see
 * server/tools/secrets.ts) with the hint that may be shown of it, or the name of the environment
 * variable it is read from (`env`); never the plain value.
 */
export type StoredMcpServer = {
  name: string;
  url: string;
  headers: Record<string, { enc: string; hint: string | null } | { env: string }>;
  /** null: every tool the server lists. */
  allowed_tools: string[] | null;
};

/** One tool call of a reply or run, as stored and shown (server/tools/schema.ts, ToolCall). */
export type StoredToolCall = {
  id: string;
  step: number;
  server: string | null;
  name: string;
  arguments: unknown;
  result: string | null;
  error: string | null;
  duration_ms: number;
};

export const agents = pgTable(
  "agents",
  {
    aid: text().primaryKey(),
    name: text().notNull(),
    model: text(),
    prompt: text(),
    temperature: doublePrecision(),
    autonomousEnabled: boolean().notNull().default(false),
    autonomousMinutes: integer().notNull().default(60),
    autonomousPrompt: text(),
    /**
     * A five-field cron expression that decides the runs instead of `autonomous_minutes` (kept,
     * not used); null = every `autonomous_minutes`. Read in `autonomous_timezone`.
     */
    autonomousCron: text(),
    /** The IANA time zone the cron expression is read in (its canonical name). */
    autonomousTimezone: text().notNull().default("UTC"),
    /** Who may chat: anyone (`public`), or only callers with one of the agent's keys (`key`). */
    chatAccess: text({ enum: CHAT_ACCESS }).notNull().default("public"),
    /** Chats a minute per caller (key or client address); null = no limit. */
    rateLimitRpm: integer(),
    /** The schedule: when the next autonomous run is due; null while autonomous mode is off. */
    autonomousNextRunAt: timestamptz(),
    /**
     * The MCP servers whose tools the agent may call, with their (encrypted) headers. On the
     * agent's row, so the chat's opening statement reads it with the agent at no extra cost.
     */
    mcpServers: jsonb().$type<StoredMcpServer[]>().notNull().default([]),
    /** Model turns that may call tools in one chat or run; 0 = tools are never called. */
    maxToolSteps: integer().notNull().default(5),
    /** Paused by an admin: no chats and no runs until resumed; nothing is deleted or reset. */
    paused: boolean().notNull().default(false),
    createdAt: timestamptz().notNull(),
    updatedAt: timestamptz().notNull(),
  },
  (t) => [
    // What the scheduler claims: due agents in due order.
    index("agents_autonomous_due").on(t.autonomousNextRunAt).where(sql`${t.autonomousEnabled}`),
    // The listing in name order (case-insensitive, ties by aid): a page is an index range scan.
    index("agents_by_name").on(sql`lower(${t.name})`, t.aid),
    check("agents_temperature_range", sql`${t.temperature} BETWEEN 0 AND 2`),
    check("agents_autonomous_minutes_range", sql`${t.autonomousMinutes} BETWEEN 1 AND 525600`),
    check("agents_chat_access", sql`${t.chatAccess} IN ('public', 'key')`),
    check("agents_rate_limit_rpm_range", sql`${t.rateLimitRpm} BETWEEN 1 AND 1000000`),
    check("agents_max_tool_steps_range", sql`${t.maxToolSteps} BETWEEN 0 AND 20`),
    check(
      "agents_autonomous_prompt_when_enabled",
      sql`NOT ${t.autonomousEnabled} OR ${t.autonomousPrompt} IS NOT NULL`,
    ),
  ],
);

/**
 * One row per agent with its five counters and five limits (null = unlimited), its token
 * budgets and the token holds its chats and runs took.
 *
 * Kept apart from `agents` because every chat updates it: a narrow, hot row keeps those
 * updates cheap and leaves the configuration row alone. Daily and monthly counters belong to
 * the UTC day or month named beside them; a counter whose period has passed counts as 0, and
 * the statement that next reserves a use of it starts it again (server/quota/counters.ts).
 * Only the statements that take or give back a use write it: a stored reply's tokens go to
 * `agent_token_usage`, so a chat takes this row once, not twice (BENCHMARKS.md).
 * `agent_quota_view` reads the two as one.
 */
export const agentQuotas = pgTable(
  "agent_quotas",
  {
    aid: text()
      .primaryKey()
      .references(() => agents.aid, { onDelete: "cascade" }),
    ...quotaCountColumns(),
    /**
     * Token holds taken: one by each chat or run admitted, given back (-1) by one that was not
     * delivered. A delivered one's hold ends in `agent_token_usage.holds_settled` instead, so
     * the holds in flight are this minus that (`agent_quota_view.token_holds`).
     */
    tokenHolds: bigint({ mode: "number" }).notNull().default(0),
  },
  (t) => [
    check(
      "agent_quotas_counts_not_negative",
      sql`${t.messageCountTotal} >= 0 AND ${t.messageCountMonthly} >= 0 AND ${t.messageCountDaily} >= 0 AND ${t.autonomousCountTotal} >= 0 AND ${t.autonomousCountMonthly} >= 0`,
    ),
    check(
      "agent_quotas_limits_not_negative",
      sql`${t.messageLimitTotal} >= 0 AND ${t.messageLimitMonthly} >= 0 AND ${t.messageLimitDaily} >= 0 AND ${t.autonomousLimitTotal} >= 0 AND ${t.autonomousLimitMonthly} >= 0`,
    ),
    check("agent_quotas_token_holds_not_negative", sql`${t.tokenHolds} >= 0`),
    check(
      "agent_quotas_token_limits_not_negative",
      sql`${t.tokenLimitTotal} >= 0 AND ${t.tokenLimitMonthly} >= 0 AND ${t.tokenLimitDaily} >= 0`,
    ),
  ],
);

/** The columns of `agent_quotas` that its view shows as they are. */
function quotaCountColumns() {
  return {
    messageCountTotal: integer().notNull().default(0),
    messageLimitTotal: integer(),
    messageCountMonthly: integer().notNull().default(0),
    messageLimitMonthly: integer(),
    messageMonth: date({ mode: "string" }).notNull(),
    messageCountDaily: integer().notNull().default(0),
    messageLimitDaily: integer(),
    messageDay: date({ mode: "string" }).notNull(),
    autonomousCountTotal: integer().notNull().default(0),
    autonomousLimitTotal: integer(),
    autonomousCountMonthly: integer().notNull().default(0),
    autonomousLimitMonthly: integer(),
    autonomousMonth: date({ mode: "string" }).notNull(),
    lastMessageAt: timestamptz(),
    lastAutonomousAt: timestamptz(),
    /** Token budgets (input + output tokens); null = unlimited. */
    tokenLimitTotal: bigint({ mode: "number" }),
    tokenLimitMonthly: bigint({ mode: "number" }),
    tokenLimitDaily: bigint({ mode: "number" }),
  };
}

/**
 * Tokens of delivered replies and succeeded runs (as the provider reported them, or estimated),
 * added by the statement that stores the reply, so they always equal what is stored; total, UTC
 * month and UTC day like the message counters. A null period is none yet.
 */
function tokenUsageColumns() {
  return {
    inputTokensTotal: bigint({ mode: "number" }).notNull().default(0),
    outputTokensTotal: bigint({ mode: "number" }).notNull().default(0),
    inputTokensMonthly: bigint({ mode: "number" }).notNull().default(0),
    outputTokensMonthly: bigint({ mode: "number" }).notNull().default(0),
    tokenMonth: date({ mode: "string" }),
    inputTokensDaily: bigint({ mode: "number" }).notNull().default(0),
    outputTokensDaily: bigint({ mode: "number" }).notNull().default(0),
    tokenDay: date({ mode: "string" }),
    /** What those tokens cost at the prices of `model_prices` (unpriced replies add nothing). */
    costTotal: numeric({ mode: "number" }).notNull().default(0),
    costMonthly: numeric({ mode: "number" }).notNull().default(0),
    costDaily: numeric({ mode: "number" }).notNull().default(0),
  };
}

/**
 * An agent's token counters, written by the statement that stores a reply (the settle,
 * server/quota/settle.ts), made by the first one. A row of its own so that storing a reply
 * does not take the quota row, which the next chat's reserve waits on: each chat then takes
 * each row once. A reserve still sees every reply stored before it took the quota row: its
 * budget check, `agent_token_budgets_have_room` (migration 0015), reads this row with a
 * snapshot of its own, taken after the lock.
 */
export const agentTokenUsage = pgTable(
  "agent_token_usage",
  {
    aid: text()
      .primaryKey()
      .references(() => agents.aid, { onDelete: "cascade" }),
    ...tokenUsageColumns(),
    /** Token holds ended by a delivered reply or a succeeded run (see agent_quotas.token_holds). */
    holdsSettled: bigint({ mode: "number" }).notNull().default(0),
  },
  (t) => [
    check(
      "agent_token_usage_not_negative",
      sql`${t.inputTokensTotal} >= 0 AND ${t.outputTokensTotal} >= 0 AND ${t.inputTokensMonthly} >= 0 AND ${t.outputTokensMonthly} >= 0 AND ${t.inputTokensDaily} >= 0 AND ${t.outputTokensDaily} >= 0 AND ${t.holdsSettled} >= 0`,
    ),
  ],
);

/**
 * An agent's quota as one row: `agent_quotas` with its `agent_token_usage` (zeros before its
 * first stored reply), and `token_holds` the holds still in flight. Defined in migration 0015;
 * what every read of a quota reads.
 */
export const agentQuotaView = pgView("agent_quota_view", {
  aid: text().notNull(),
  ...quotaCountColumns(),
  ...tokenUsageColumns(),
  /** Chats and runs admitted and not yet stored or given back (each holds one token). */
  tokenHolds: bigint({ mode: "number" }).notNull(),
}).existing();

/** The view's columns, as a selection (`select({ quota: agentQuotaFields })`). */
export const agentQuotaFields = getViewSelectedFields(agentQuotaView);

/**
 * A conversation thread of an agent, with what listing threads needs kept up to date. A thread
 * belongs to its caller: `caller` is `key:<key id>`, `addr:<keyed hash of the client address>`,
 * `wallet:<address>`, `admin`, `agent` (the autonomous runs' thread) or `shared` (threads
 * written before threads had owners, which no caller can reach any more). The same `chat_id`
 * of two callers is two threads.
 */
export const chatThreads = pgTable(
  "chat_threads",
  {
    aid: text()
      .notNull()
      .references(() => agents.aid, { onDelete: "cascade" }),
    caller: text().notNull(),
    chatId: text().notNull(),
    messageCount: integer().notNull().default(0),
    createdAt: timestamptz().notNull(),
    lastMessageAt: timestamptz().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.aid, t.caller, t.chatId] }),
    index("chat_threads_recent").on(t.aid, t.lastMessageAt.desc(), t.caller, t.chatId),
  ],
);

/** Every delivered message, user and agent. Only exchanges whose reply was delivered are kept. */
export const chatMessages = pgTable(
  "chat_messages",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    aid: text().notNull(),
    caller: text().notNull(),
    chatId: text().notNull(),
    role: text({ enum: ["user", "assistant"] }).notNull(),
    content: text().notNull(),
    /**
     * The tool calls the model made before writing this reply, with their (capped) results,
     * in order; null when it made none. On the reply's own row rather than as rows of their
     * own: they are sent to the model with the reply as history, so the history read stays one
     * index scan and an exchange stays two messages.
     */
    toolCalls: jsonb().$type<StoredToolCall[]>(),
    createdAt: timestamptz().notNull(),
    /**
     * The tokens of the model call that wrote a reply (null on questions, and on replies stored
     * before usage was kept): from the provider's `usage`, or estimated when it sent none.
     */
    inputTokens: integer(),
    outputTokens: integer(),
    tokensEstimated: boolean(),
    /** What the reply's tokens cost at the model's price then; null when the model had none. */
    cost: numeric({ mode: "number" }),
  },
  (t) => [
    // The history read is "the last N messages of this thread": one backward index range scan.
    index("chat_messages_thread").on(t.aid, t.caller, t.chatId, t.id),
    foreignKey({
      columns: [t.aid, t.caller, t.chatId],
      foreignColumns: [chatThreads.aid, chatThreads.caller, chatThreads.chatId],
    }).onDelete("cascade"),
    check("chat_messages_role", sql`${t.role} IN ('user', 'assistant')`),
  ],
);

/**
 * A chat's message use, held from the moment it is counted until its reply is stored or the use
 * is given back; both delete the row in the statement that does them, so only one can. A row
 * older than any live chat (LLM_TIMEOUT_MS and a margin) was left by a process that died: the
 * sweep gives its use back. With PGlite (one process) every row found at start is such a one.
 */
export const chatReservations = pgTable(
  "chat_reservations",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    aid: text()
      .notNull()
      .references(() => agents.aid, { onDelete: "cascade" }),
    /** The UTC day and month whose counters the use was taken from. */
    day: date({ mode: "string" }).notNull(),
    month: date({ mode: "string" }).notNull(),
    reservedAt: timestamptz().notNull(),
  },
  (t) => [index("chat_reservations_age").on(t.reservedAt)],
);

/**
 * A caller's chats with an agent in its current rate-limit window: a window opens with the
 * caller's first chat and lasts a minute; past `rate_limit_rpm` chats in it, the next waits for
 * it to end. Rows of windows long over are deleted by the periodic sweep.
 */
export const chatRateLimits = pgTable(
  "chat_rate_limits",
  {
    aid: text()
      .notNull()
      .references(() => agents.aid, { onDelete: "cascade" }),
    caller: text().notNull(),
    windowStartedAt: timestamptz().notNull(),
    count: integer().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.aid, t.caller] }),
    index("chat_rate_limits_age").on(t.windowStartedAt),
  ],
);

/**
 * A caller key of an agent: `ak_<id>_<secret>` is shown once at creation; only the SHA-256 of
 * the secret is kept (the secret is 256 random bits, so a fast hash is enough). A revoked key is
 * kept, so that its threads still name it, but is never accepted again.
 */
export const agentKeys = pgTable(
  "agent_keys",
  {
    id: text().primaryKey(),
    aid: text()
      .notNull()
      .references(() => agents.aid, { onDelete: "cascade" }),
    name: text().notNull(),
    secretHash: text().notNull(),
    createdAt: timestamptz().notNull(),
    /** Updated at most once a minute, so a busy key does not write on every chat. */
    lastUsedAt: timestamptz(),
    revokedAt: timestamptz(),
    /** From this instant on the key is refused, as a revoked one is; null = never. */
    expiresAt: timestamptz(),
    /** Chats a minute of this key, instead of its agent's `rate_limit_rpm`; null = the agent's. */
    rateLimitRpm: integer(),
  },
  (t) => [
    index("agent_keys_by_agent").on(t.aid, t.createdAt),
    check("agent_keys_rate_limit_rpm_range", sql`${t.rateLimitRpm} BETWEEN 1 AND 1000000`),
  ],
);

export const RUN_OUTCOMES = ["running", "succeeded", "failed", "skipped"] as const;

/**
 * One autonomous run: a scheduled slot (or a "run now"), from claim to outcome. A scheduled
 * slot can be recorded once only (the unique index), whatever the number of schedulers.
 */
export const autonomousRuns = pgTable(
  "autonomous_runs",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    aid: text()
      .notNull()
      .references(() => agents.aid, { onDelete: "cascade" }),
    trigger: text({ enum: ["schedule", "manual"] }).notNull(),
    dueAt: timestamptz().notNull(),
    startedAt: timestamptz().notNull(),
    finishedAt: timestamptz(),
    outcome: text({ enum: RUN_OUTCOMES }).notNull(),
    reply: text(),
    error: text(),
    /** The tool calls of a succeeded run, as on its reply's message; null when it made none. */
    toolCalls: jsonb().$type<StoredToolCall[]>(),
    /** The tokens of a succeeded run's model call, as for chat replies. */
    inputTokens: integer(),
    outputTokens: integer(),
    tokensEstimated: boolean(),
    /** Its tokens' cost, as for chat replies. */
    cost: numeric({ mode: "number" }),
    /** The UTC month whose autonomous quota this run holds, until it finishes or is given back. */
    quotaMonth: date({ mode: "string" }),
  },
  (t) => [
    uniqueIndex("autonomous_runs_slot").on(t.aid, t.dueAt).where(sql`${t.trigger} = 'schedule'`),
    index("autonomous_runs_by_agent").on(t.aid, t.id),
    // The runs in flight, by id: a run's end (`WHERE id = $1 AND runInFlight`) finds its row here
    // in one descent, and the sweep reads them all (a few per scheduler). On started_at, the
    // planner took this small index for a run's end too and walked every run in flight, and
    // every entry of an ended run not yet vacuumed, to find the one id: with 5,000 in flight,
    // 0.9 ms an end against 0.35 by id (BENCHMARKS.md).
    index("autonomous_runs_in_flight").on(t.id).where(sql`${t.outcome} = 'running'`),
    check("autonomous_runs_trigger", sql`${t.trigger} IN ('schedule', 'manual')`),
    check(
      "autonomous_runs_outcome",
      sql`${t.outcome} IN ('running', 'succeeded', 'failed', 'skipped')`,
    ),
  ],
);

/**
 * A run still in flight, as a condition: the in-flight index's own predicate, written as a
 * literal. A prepared statement's generic plan can use a partial index only where the
 * statement's text proves its predicate, and `outcome = $1` proves nothing: the sweep, written
 * so, could keep no plan (its generic one read the whole table) and was planned on every pass.
 */
export const runInFlight = sql`${autonomousRuns.outcome} = 'running'`;

/**
 * What a million tokens of a model cost, input and output (in the operator's currency), as
 * MODEL_PRICES sets at start-up or an admin sets later. A reply is priced when it is stored,
 * so changing a price does not rewrite the past.
 */
export const modelPrices = pgTable(
  "model_prices",
  {
    model: text().primaryKey(),
    inputPerMillion: numeric({ mode: "number" }).notNull(),
    outputPerMillion: numeric({ mode: "number" }).notNull(),
    updatedAt: timestamptz().notNull(),
  },
  (t) => [
    check(
      "model_prices_not_negative",
      sql`${t.inputPerMillion} >= 0 AND ${t.outputPerMillion} >= 0`,
    ),
  ],
);

/**
 * An agent's activity per UTC hour, for usage over time: written by the same statements that
 * store a reply, finish a run or refuse a chat, so it always sums what is stored. Refused chats
 * are stored nowhere else. Reading a month is at most 744 rows an agent, however busy.
 */
export const usageHourly = pgTable(
  "usage_hourly",
  {
    aid: text()
      .notNull()
      .references(() => agents.aid, { onDelete: "cascade" }),
    hour: timestamptz().notNull(),
    messages: integer().notNull().default(0),
    runs: integer().notNull().default(0),
    inputTokens: bigint({ mode: "number" }).notNull().default(0),
    outputTokens: bigint({ mode: "number" }).notNull().default(0),
    /** The cost of the priced replies; `unpriced` counts those whose model had no price. */
    cost: numeric({ mode: "number" }).notNull().default(0),
    unpriced: integer().notNull().default(0),
    refusedQuota: integer().notNull().default(0),
    refusedRate: integer().notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.aid, t.hour] }),
    // Usage across every agent reads a range of hours.
    index("usage_hourly_by_hour").on(t.hour),
  ],
);

/** Sign-In with Ethereum nonces: issued by GET /v1/nonce for one address, spent once. */
export const siweNonces = pgTable(
  "siwe_nonces",
  {
    nonce: text().primaryKey(),
    /** Lower-case: the address the nonce was issued to. */
    address: text().notNull(),
    issuedAt: timestamptz().notNull(),
    expiresAt: timestamptz().notNull(),
    usedAt: timestamptz(),
  },
  (t) => [index("siwe_nonces_expiry").on(t.expiresAt)],
);

/**
 * Dashboard sessions. The cookie holds a random token; only its SHA-256 is kept here, so a
 * copy of this table signs nobody in. Signing out deletes the row, and an admin can delete
 * them all; whether a wallet is an admin is decided on every request from ADMIN_ADDRESSES.
 */
export const sessions = pgTable(
  "sessions",
  {
    tokenHash: text().primaryKey(),
    via: text({ enum: ["api_key", "wallet"] }).notNull(),
    /** The wallet, EIP-55 checksummed; null for an admin-key session. */
    address: text(),
    createdAt: timestamptz().notNull(),
    expiresAt: timestamptz().notNull(),
  },
  (t) => [
    index("sessions_expiry").on(t.expiresAt),
    check("sessions_via", sql`${t.via} IN ('api_key', 'wallet')`),
  ],
);

/**
 * Failed credentials per client (the keyed hash of its address): wrong admin keys, failed
 * sign-ins, counted while they come less than a quarter of an hour apart. Past a few, the client
 * is blocked for a time that doubles with each further failure; every credential it sends
 * meanwhile is refused with 429 (server/auth/throttle.ts).
 */
export const authFailures = pgTable(
  "auth_failures",
  {
    client: text().primaryKey(),
    failures: integer().notNull(),
    lastFailedAt: timestamptz().notNull(),
    blockedUntil: timestamptz(),
  },
  (t) => [index("auth_failures_age").on(t.lastFailedAt)],
);

/**
 * Fixed windows of a minute, per purpose and client, for writes anyone may make (nonces): a
 * window opens with the client's first request and counts until it ends.
 */
export const rateWindows = pgTable(
  "rate_windows",
  {
    scope: text().notNull(),
    client: text().notNull(),
    windowStartedAt: timestamptz().notNull(),
    count: integer().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.scope, t.client] }),
    index("rate_windows_age").on(t.windowStartedAt),
  ],
);

export { DEPLOYMENT_STATUSES, type DeploymentStatus };

/** A worker deployment, as the interface gives it, plus the worker it is assigned to. */
export const deployments = pgTable(
  "deployments",
  {
    id: serial().primaryKey(),
    requestId: text().notNull().unique(),
    /** The owner, EIP-55 checksummed. */
    userAddress: text().notNull(),
    workerName: text(),
    workerUuid: text(),
    proposalHash: text(),
    proposalId: integer(),
    deploymentDetails: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    proposal: jsonb().$type<Record<string, unknown>>().notNull(),
    status: text({ enum: DEPLOYMENT_STATUSES }).notNull().default("init"),
    /** The worker that claimed it with `pick_up`, EIP-55 checksummed; null until then. */
    workerAddress: text(),
    createdAt: timestamptz().notNull(),
    updatedAt: timestamptz().notNull(),
  },
  (t) => [
    index("deployments_by_owner").on(t.userAddress, t.id),
    index("deployments_by_status").on(t.status, t.id),
    check(
      "deployments_status",
      sql`${t.status} IN ('init', 'pick_up', 'deploying', 'deployed', 'generated_proof', 'failed', 'cancelled')`,
    ),
  ],
);

/** Every status change (and same-status detail update): who signed it, when, with which nonce. */
export const deploymentStatusHistory = pgTable(
  "deployment_status_history",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    deploymentId: integer()
      .notNull()
      .references(() => deployments.id, { onDelete: "cascade" }),
    fromStatus: text({ enum: DEPLOYMENT_STATUSES }),
    toStatus: text({ enum: DEPLOYMENT_STATUSES }).notNull(),
    signerAddress: text().notNull(),
    nonce: text().notNull(),
    deploymentDetails: jsonb().$type<Record<string, unknown>>(),
    createdAt: timestamptz().notNull(),
  },
  (t) => [index("deployment_history_by_deployment").on(t.deploymentId, t.id)],
);

/**
 * The first refusal of an agent's use by one limit in one period (a day, a month, or `total`),
 * at one limit value: what `agent.limit_reached` is sent for once, not for every refusal after
 * it (server/quota/notices.ts). Written on the refusal path only, and only while an endpoint
 * subscribes to the event.
 */
export const limitNotices = pgTable(
  "limit_notices",
  {
    aid: text()
      .notNull()
      .references(() => agents.aid, { onDelete: "cascade" }),
    /** The limit's field, e.g. `message_limit_daily`. */
    limitField: text().notNull(),
    /** The UTC day or month of the refused use (`2026-11-24`, `2026-11`), or `total`. */
    period: text().notNull(),
    limitValue: bigint({ mode: "number" }).notNull(),
    createdAt: timestamptz().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.aid, t.limitField, t.period, t.limitValue] }),
    index("limit_notices_age").on(t.createdAt),
  ],
);

/**
 * An admin's webhook endpoint: where events are sent, which ones, and its signing secret,
 * encrypted (server/webhooks/secrets.ts) and never shown again after it is made.
 */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: text().primaryKey(),
    url: text().notNull(),
    description: text(),
    events: text().array().notNull(),
    /** `whsec_…`, AES-256-GCM under a key derived from the admin key, bound to the id. */
    secret: text().notNull(),
    enabled: boolean().notNull().default(true),
    /** Why it was disabled (a sentence), while it is. */
    disabledReason: text(),
    /** The first failed attempt since its last success; null while it succeeds. */
    failingSince: timestamptz(),
    createdAt: timestamptz().notNull(),
    updatedAt: timestamptz().notNull(),
  },
  (t) => [index("webhook_endpoints_created").on(t.createdAt, t.id)],
);

/** One attempt to deliver an event, as the delivery log keeps it (at most the last 20). */
export type StoredWebhookAttempt = {
  attempt: number;
  at: string;
  /** The receiver's HTTP status; null when none came (refused, unreachable, timed out). */
  status_code: number | null;
  duration_ms: number;
  /** The first bytes of the receiver's answer (at most 200), as storable text. */
  response_excerpt: string | null;
  /** Why the attempt failed, in the service's own words; null when it was delivered. */
  error: string | null;
};

/**
 * The outbox: one row per event and subscribed endpoint, written by the statement or
 * transaction that makes the event, so an event is never lost to a process that dies after
 * it. Senders on any instance claim due rows (FOR UPDATE SKIP LOCKED); a claim moves
 * `next_attempt_at` ahead by a lease, so a claim whose sender died becomes due again.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    endpointId: text()
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    /** The `webhook-id` header: the same on every attempt of this delivery. */
    webhookId: text().notNull(),
    eventType: text().notNull(),
    /** The exact JSON body, signed and sent as it is on every attempt. */
    body: text().notNull(),
    status: text({ enum: WEBHOOK_DELIVERY_STATUSES }).notNull().default("pending"),
    /** Attempts claimed so far; a sender's claim is its number, so a stale sender cannot record. */
    attemptCount: integer().notNull().default(0),
    attempts: jsonb().$type<StoredWebhookAttempt[]>().notNull().default([]),
    /** When it is due (pending), or until when a sender's claim holds it. */
    nextAttemptAt: timestamptz().notNull(),
    /** When retries stop; null: `created_at` + WEBHOOK_RETRY_WINDOW_H. */
    giveUpAt: timestamptz(),
    createdAt: timestamptz().notNull(),
    /** When it was delivered or given up. */
    finishedAt: timestamptz(),
  },
  (t) => [
    index("webhook_deliveries_due").on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index("webhook_deliveries_by_endpoint").on(t.endpointId, t.id),
    index("webhook_deliveries_finished").on(t.finishedAt),
    check("webhook_deliveries_status", sql`${t.status} IN ('pending', 'delivered', 'failed')`),
  ],
);

/**
 * The request log: one row per chat request that reached the chat engine (server/chat), its
 * reply delivered or not, written in batches by each process (server/requests/recorder.ts) and
 * deleted after REQUEST_LOG_DAYS by the housekeeping. No foreign key to the agent: a deleted
 * agent's rows stay until they are old enough, and the insert checks nothing on the chat's path.
 */
export const requestLog = pgTable(
  "request_log",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    /** When the chat engine took the request (the injected clock). */
    startedAt: timestamptz().notNull(),
    via: text({ enum: REQUEST_VIAS }).notNull(),
    aid: text().notNull(),
    /** The caller as threads store it (server/callers `callerId`): `admin`, `key:<id>`, … */
    caller: text().notNull(),
    /** The thread the exchange is (or would have been) stored in. */
    chatId: text().notNull(),
    /** The HTTP status of the chat's outcome: 200, or its problem's (a stream's `error` event's). */
    status: integer().notNull(),
    /** The problem's code, e.g. `quota_exceeded`; null for a delivered reply. */
    code: text(),
    latencyMs: integer().notNull(),
    /** The model that wrote the stored reply (its price's); null when no reply was stored. */
    model: text(),
    /** The stored reply's tokens and cost; null when no reply was stored (or it had no price). */
    inputTokens: integer(),
    outputTokens: integer(),
    cost: numeric({ mode: "number" }),
    /** The request's id (X-Request-Id); null for a chat made without HTTP. */
    requestId: text(),
  },
  (t) => [
    // Newest first, over all agents and per agent; the age purge reads the first too.
    index("request_log_recent").on(t.startedAt, t.id),
    index("request_log_by_agent").on(t.aid, t.startedAt, t.id),
    check("request_log_via", sql`${t.via} IN ('chat', 'completions')`),
  ],
);

export type AgentRow = typeof agents.$inferSelect;
export type AutonomousRunRow = typeof autonomousRuns.$inferSelect;
export type DeploymentRow = typeof deployments.$inferSelect;
export type DeploymentHistoryRow = typeof deploymentStatusHistory.$inferSelect;
/** An agent's whole quota, as `agent_quota_view` reads it. */
export type AgentQuotaRow = typeof agentQuotaView.$inferSelect;
export type AgentQuotaCountsRow = typeof agentQuotas.$inferSelect;
export type AgentTokenUsageRow = typeof agentTokenUsage.$inferSelect;
export type ChatMessageRow = typeof chatMessages.$inferSelect;
export type ChatThreadRow = typeof chatThreads.$inferSelect;
export type AgentKeyRow = typeof agentKeys.$inferSelect;
export type SessionRow = typeof sessions.$inferSelect;
export type ModelPriceRow = typeof modelPrices.$inferSelect;
export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
export type RequestLogRow = typeof requestLog.$inferSelect;
