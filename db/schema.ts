import { getViewSelectedFields, sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  customType,
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
  unique,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import {
  ADMIN_ROLES,
  CHAT_ACCESS,
  DEPLOYMENT_STATUSES,
  type DeploymentStatus,
  REQUEST_VIAS,
  WEBHOOK_DELIVERY_STATUSES,
} from "./enums";

const timestamptz = () => timestamp({ withTimezone: true, mode: "date" });

/**
 * Counts, limits and token figures, never negative, checked by their type (a domain, migration
 * 0021) rather than by CHECK constraints, which PostgreSQL parses again in every statement that
 * writes the row: a seventh of its work on a chat. (A message's role keeps its CHECK: a new type
 * would rewrite every message.)
 */
const count = customType<{ data: number; driverData: number }>({
  dataType: () => "non_negative_integer",
});
const bigCount = customType<{ data: number; driverData: number | string }>({
  dataType: () => "non_negative_bigint",
  fromDriver: (value) => Number(value),
});

/** An MCP server as stored: header values encrypted or read from the environment, never plain. */
export type StoredMcpServer = {
  name: string;
  url: string;
  headers: Record<string, { enc: string; hint: string | null } | { env: string }>;
  /** null: every tool the server lists. */
  allowed_tools: string[] | null;
  /** Tools whose calls wait for an approval; `["*"]`: all. Missing in rows stored before it. */
  approval_required_tools?: string[];
};

/**
 * A model endpoint of an agent as stored: its API key encrypted (bound to the URL's origin) or
 * read from the environment, never plain.
 */
export type StoredModelEndpoint = {
  name: string;
  base_url: string;
  model: string;
  api_key: { enc: string; hint: string | null } | null;
  api_key_env: string | null;
  /** How long to wait for its first token before trying the next; null = a share of the time left. */
  timeout_ms: number | null;
};

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
    /** Overrides `autonomous_minutes` (kept, unused) when set; read in `autonomous_timezone`. */
    autonomousCron: text(),
    autonomousTimezone: text().notNull().default("UTC"),
    chatAccess: text({ enum: CHAT_ACCESS }).notNull().default("public"),
    rateLimitRpm: integer(),
    autonomousNextRunAt: timestamptz(),
    /** On the agent's row, so the chat's opening statement reads it at no extra cost. */
    mcpServers: jsonb().$type<StoredMcpServer[]>().notNull().default([]),
    /** Tried in order; empty = the configured provider (LLM_BASE_URL, or echo). */
    modelEndpoints: jsonb().$type<StoredModelEndpoint[]>().notNull().default([]),
    /** Model turns that may call tools in one chat or run; 0 = tools are never called. */
    maxToolSteps: integer().notNull().default(5),
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
 * Counters, limits and token holds, apart from `agents` because every chat updates this narrow,
 * hot row; a stored reply's tokens go to `agent_token_usage`, so a chat takes it once.
 */
export const agentQuotas = pgTable("agent_quotas", {
  aid: text()
    .primaryKey()
    .references(() => agents.aid, { onDelete: "cascade" }),
  ...quotaCountColumns(),
  /** Holds taken (-1 if not delivered); in flight: this minus agent_token_usage.holds_settled. */
  tokenHolds: bigCount().notNull().default(0),
});

function quotaCountColumns() {
  return {
    messageCountTotal: count().notNull().default(0),
    messageLimitTotal: count(),
    messageCountMonthly: count().notNull().default(0),
    messageLimitMonthly: count(),
    messageMonth: date({ mode: "string" }).notNull(),
    messageCountDaily: count().notNull().default(0),
    messageLimitDaily: count(),
    messageDay: date({ mode: "string" }).notNull(),
    autonomousCountTotal: count().notNull().default(0),
    autonomousLimitTotal: count(),
    autonomousCountMonthly: count().notNull().default(0),
    autonomousLimitMonthly: count(),
    autonomousMonth: date({ mode: "string" }).notNull(),
    lastMessageAt: timestamptz(),
    lastAutonomousAt: timestamptz(),
    /** Token budgets (input + output tokens); null = unlimited. */
    tokenLimitTotal: bigCount(),
    tokenLimitMonthly: bigCount(),
    tokenLimitDaily: bigCount(),
  };
}

/** Tokens of delivered replies and succeeded runs, added by the statement that stores them. */
function tokenUsageColumns() {
  return {
    inputTokensTotal: bigCount().notNull().default(0),
    outputTokensTotal: bigCount().notNull().default(0),
    inputTokensMonthly: bigCount().notNull().default(0),
    outputTokensMonthly: bigCount().notNull().default(0),
    tokenMonth: date({ mode: "string" }),
    inputTokensDaily: bigCount().notNull().default(0),
    outputTokensDaily: bigCount().notNull().default(0),
    tokenDay: date({ mode: "string" }),
    costTotal: numeric({ mode: "number" }).notNull().default(0),
    costMonthly: numeric({ mode: "number" }).notNull().default(0),
    costDaily: numeric({ mode: "number" }).notNull().default(0),
  };
}

/**
 * An agent's token counters, a row apart so that storing a reply does not take the quota row the
 * next chat's reserve waits on. A reserve's budget check still sees every reply stored before it
 * took the quota row: it reads this row with a snapshot taken after the lock.
 */
export const agentTokenUsage = pgTable("agent_token_usage", {
  aid: text()
    .primaryKey()
    .references(() => agents.aid, { onDelete: "cascade" }),
  ...tokenUsageColumns(),
  holdsSettled: bigCount().notNull().default(0),
});

/** An agent's quota as one row (defined in the migrations): what every read of a quota reads. */
export const agentQuotaView = pgView("agent_quota_view", {
  aid: text().notNull(),
  ...quotaCountColumns(),
  ...tokenUsageColumns(),
  tokenHolds: bigint({ mode: "number" }).notNull(),
}).existing();

export const agentQuotaFields = getViewSelectedFields(agentQuotaView);

/** A thread belongs to its caller: the same `chat_id` of two callers is two threads. */
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
    /** The tool calls before this reply: on its row, so the history read stays one index scan. */
    toolCalls: jsonb().$type<StoredToolCall[]>(),
    createdAt: timestamptz().notNull(),
    /** The reply's tokens, reported or estimated; null on questions and replies without usage. */
    inputTokens: integer(),
    outputTokens: integer(),
    tokensEstimated: boolean(),
    cost: numeric({ mode: "number" }),
  },
  (t) => [
    // The history read is "the last N messages of this thread": one backward index range scan.
    // No foreign key to the thread: the store writes both in one statement, and the check cost
    // two queries a chat; an agent's deletion deletes its messages (server/agents).
    index("chat_messages_thread").on(t.aid, t.caller, t.chatId, t.id),
    check("chat_messages_role", sql`${t.role} IN ('user', 'assistant')`),
  ],
);

/**
 * A chat's message use, held until its reply is stored or the use is given back; both delete the
 * row, so only one can. A row older than any live chat was left by a dead process: swept.
 */
export const chatReservations = pgTable(
  "chat_reservations",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    // No foreign key to the agent: one is written only beside its quota row's count, and the
    // check cost every opening a statement and a share lock on the agent's row; an agent's
    // deletion deletes its reservations (server/agents).
    aid: text().notNull(),
    day: date({ mode: "string" }).notNull(),
    month: date({ mode: "string" }).notNull(),
    reservedAt: timestamptz().notNull(),
    /** Tokens the chat holds against the agent's budgets (its input's estimate) until it ends. */
    heldTokens: bigint({ mode: "number" }).notNull().default(1),
  },
  (t) => [index("chat_reservations_age").on(t.reservedAt)],
);

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

/** An agent key: only its secret's SHA-256 is kept; a revoked key stays so its threads name it. */
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
    expiresAt: timestamptz(),
    rateLimitRpm: integer(),
  },
  (t) => [
    index("agent_keys_by_agent").on(t.aid, t.createdAt),
    check("agent_keys_rate_limit_rpm_range", sql`${t.rateLimitRpm} BETWEEN 1 AND 1000000`),
  ],
);

export const RUN_OUTCOMES = ["running", "succeeded", "failed", "skipped"] as const;

/** One autonomous run; the unique index records a scheduled slot once, however many schedulers. */
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
    toolCalls: jsonb().$type<StoredToolCall[]>(),
    inputTokens: integer(),
    outputTokens: integer(),
    tokensEstimated: boolean(),
    cost: numeric({ mode: "number" }),
    /** The UTC month whose autonomous quota this run holds, until it finishes or is given back. */
    quotaMonth: date({ mode: "string" }),
    /** Set by a cancel on any instance; the one running it reads it every CANCEL_POLL_MS. */
    cancelRequestedAt: timestamptz(),
  },
  (t) => [
    uniqueIndex("autonomous_runs_slot").on(t.aid, t.dueAt).where(sql`${t.trigger} = 'schedule'`),
    index("autonomous_runs_by_agent").on(t.aid, t.id),
    // The runs in flight by id: a run's end (`WHERE id = $1 AND runInFlight`) finds its row in one
    // descent, and the sweep reads them all. Keyed on started_at, the planner walked every run in
    // flight to end one.
    index("autonomous_runs_in_flight").on(t.id).where(sql`${t.outcome} = 'running'`),
    check("autonomous_runs_trigger", sql`${t.trigger} IN ('schedule', 'manual')`),
    check(
      "autonomous_runs_outcome",
      sql`${t.outcome} IN ('running', 'succeeded', 'failed', 'skipped')`,
    ),
  ],
);

/**
 * A run in flight, as the in-flight index's own predicate written as a literal: a generic plan can
 * use a partial index only where the statement's text proves its predicate, and `outcome = $1`
 * proves nothing.
 */
export const runInFlight = sql`${autonomousRuns.outcome} = 'running'`;

// What a million tokens of a model cost, input and output. A reply is priced when it is stored,
// so changing a price does not rewrite the past.
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

// An agent's activity per UTC hour, written by the statements that store a reply, finish a run or
// refuse a chat, so that it always sums what is stored (refusals are stored nowhere else).
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

/** An input message as a response keeps it: its role and its text. */
export type StoredInputMessage = {
  role: "user" | "assistant" | "system" | "developer";
  text: string;
};

/**
 * A response of the Responses API (POST /v1/responses) that its caller asked to keep: what it was
 * asked and answered, to be read back, listed and continued by its caller. Its exchange is also
 * in the caller's thread `responses`, as every chat's is.
 */
export const responses = pgTable(
  "responses",
  {
    id: text().primaryKey(),
    aid: text()
      .notNull()
      .references(() => agents.aid, { onDelete: "cascade" }),
    caller: text().notNull(),
    previousResponseId: text(),
    instructions: text(),
    input: jsonb().$type<StoredInputMessage[]>().notNull(),
    outputText: text().notNull(),
    inputTokens: integer().notNull(),
    outputTokens: integer().notNull(),
    metadata: jsonb().$type<Record<string, string>>().notNull(),
    /** What the request set that the response object repeats (temperature, top_p, …). */
    settings: jsonb().$type<Record<string, unknown>>().notNull(),
    createdAt: timestamptz().notNull(),
    /** `in_progress` only while a background response is answered; then how it ended. */
    status: text().$type<ResponseStatus>().notNull().default("completed"),
    background: boolean().notNull().default(false),
    /** Why it failed, as the response object says it. */
    error: jsonb().$type<{ code: string; message: string }>(),
    /** Set by a cancel on any instance; the one answering it reads it as it writes its events. */
    cancelRequestedAt: timestamptz(),
    /** The answering instance's last sign of life: a background response left past it failed. */
    heartbeatAt: timestamptz(),
    /** Its events are still kept, to be purged a day after it ended: the purge's index. */
    eventsKept: boolean().notNull().default(false),
  },
  (t) => [
    index("responses_by_agent").on(t.aid, t.caller, t.createdAt),
    index("responses_in_progress").on(t.heartbeatAt).where(sql`${t.status} = 'in_progress'`),
    index("responses_events_kept").on(t.heartbeatAt).where(sql`${t.eventsKept}`),
    check(
      "responses_status",
      sql`${t.status} IN ('in_progress', 'completed', 'failed', 'cancelled')`,
    ),
  ],
);

export const RESPONSE_STATUSES = ["in_progress", "completed", "failed", "cancelled"] as const;
export type ResponseStatus = (typeof RESPONSE_STATUSES)[number];

/**
 * The events of a background response's stream as they were sent, numbered from 0 (their
 * `sequence_number`): a client that reconnects to any instance is sent those after the last it
 * had, then the rest as they come.
 */
export const responseEvents = pgTable(
  "response_events",
  {
    responseId: text()
      .notNull()
      .references(() => responses.id, { onDelete: "cascade" }),
    seq: integer().notNull(),
    /** The event's JSON, as sent. */
    data: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.responseId, t.seq] })],
);

/**
 * The circuit of each model endpoint (base URL and model) that failed lately, shared by every
 * worker and instance: `failures` in a row, forgotten once `last_failure_at` is a cooling period
 * old; open (skipped) until `open_until`; then one call at a time may probe it (`probe_until`).
 * A success deletes the row: a healthy endpoint has none.
 */
export const modelCircuits = pgTable(
  "model_circuits",
  {
    baseUrl: text().notNull(),
    model: text().notNull(),
    failures: integer().notNull(),
    lastFailureAt: timestamptz().notNull(),
    openUntil: timestamptz(),
    probeUntil: timestamptz(),
  },
  (t) => [primaryKey({ columns: [t.baseUrl, t.model] })],
);

/**
 * Cancels asked for chats in flight, by their request id (X-Request-Id) and who asks: the process
 * answering the chat reads them every quarter second, stops it if the asker may, and marks it
 * `done_at`; the cancel's request deletes its row when it answers. A chat writes nothing here.
 */
export const chatCancels = pgTable(
  "chat_cancels",
  {
    requestId: text().notNull(),
    /** The asker's scope (server/callers: callerScope): `admin` may cancel any chat. */
    caller: text().notNull(),
    aid: text().notNull(),
    requestedAt: timestamptz().notNull(),
    doneAt: timestamptz(),
  },
  (t) => [primaryKey({ columns: [t.requestId, t.caller] })],
);

/**
 * A streamed chat whose client left before its end, recorded from then on for the client to
 * resume from any instance with `Last-Event-ID` (server/chat/resume.ts). A stream whose client
 * stays is never written here. Kept CHAT_RESUME_S after it ends.
 */
export const chatStreams = pgTable(
  "chat_streams",
  {
    /** The caller's scope (server/callers: callerScope): only the same caller resumes. */
    caller: text().notNull(),
    requestId: text().notNull(),
    aid: text().notNull(),
    /** `live` while it is answered; then `ended`, or `abandoned` (no client came back in time). */
    status: text().$type<"live" | "ended" | "abandoned">().notNull(),
    /** Stopped then, its message given back, unless a client resumes it before. */
    graceUntil: timestamptz().notNull(),
    resumedAt: timestamptz(),
    /** The answering instance's last sign of life: a live stream left past it has ended. */
    heartbeatAt: timestamptz().notNull(),
    endedAt: timestamptz(),
  },
  (t) => [
    // By request id first: a resume looks for the id whoever asked it.
    primaryKey({ columns: [t.requestId, t.caller] }),
    index("chat_streams_ended").on(t.endedAt),
  ],
);

/** A recorded stream's events, numbered from 0 as their ids say, each its SSE frame. */
export const chatStreamEvents = pgTable(
  "chat_stream_events",
  {
    caller: text().notNull(),
    requestId: text().notNull(),
    seq: integer().notNull(),
    frame: text().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.requestId, t.caller, t.seq] }),
    foreignKey({
      name: "chat_stream_events_stream_fk",
      columns: [t.requestId, t.caller],
      foreignColumns: [chatStreams.requestId, chatStreams.caller],
    }).onDelete("cascade"),
  ],
);

/**
 * A task of an agent's A2A server (POST /{aid}/a2a): its state, for any instance to read and to
 * cancel it, and the task as the A2A SDK keeps it. A task in a final state is never changed.
 */
export const a2aTasks = pgTable(
  "a2a_tasks",
  {
    id: text().primaryKey(),
    aid: text()
      .notNull()
      .references(() => agents.aid, { onDelete: "cascade" }),
    caller: text().notNull(),
    state: text().notNull(),
    task: jsonb().$type<Record<string, unknown>>().notNull(),
    updatedAt: timestamptz().notNull(),
  },
  (t) => [index("a2a_tasks_by_agent").on(t.aid, t.caller)],
);

/**
 * The answers of requests sent with an `Idempotency-Key`, by caller and key: a retry within a day
 * replays the answer instead of doing the work again. `answered_at` is null while the first is in
 * flight; `claim` fences its end, so a claim taken over from a process that died is not overwritten.
 */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    caller: text().notNull(),
    key: text().notNull(),
    fingerprint: text().notNull(),
    claim: text().notNull(),
    claimedAt: timestamptz().notNull(),
    answeredAt: timestamptz(),
    status: integer(),
    headers: jsonb().$type<Record<string, string>>(),
    body: text(),
  },
  (t) => [
    primaryKey({ columns: [t.caller, t.key] }),
    index("idempotency_keys_by_age").on(t.claimedAt),
  ],
);

export const siweNonces = pgTable(
  "siwe_nonces",
  {
    nonce: text().primaryKey(),
    address: text().notNull(),
    issuedAt: timestamptz().notNull(),
    expiresAt: timestamptz().notNull(),
    usedAt: timestamptz(),
  },
  (t) => [index("siwe_nonces_expiry").on(t.expiresAt)],
);

/** Dashboard sessions; only the token's SHA-256 is kept, so a copy of the table signs nobody in. */
const adminRoleCheck = (column: unknown) =>
  sql`${column} IN (${sql.raw(ADMIN_ROLES.map((role) => `'${role}'`).join(", "))})`;

/** The people who administer the service, each with a role; known by a wallet, an email or both. */
export const admins = pgTable(
  "admins",
  {
    id: text().primaryKey(),
    name: text().notNull(),
    /** Lowercase, as wallets are compared. */
    wallet: text().unique(),
    /** Lowercase; an identity provider's verified email signs in as it. */
    email: text().unique(),
    role: text({ enum: ADMIN_ROLES }).notNull(),
    createdAt: timestamptz().notNull(),
    updatedAt: timestamptz().notNull(),
  },
  (t) => [
    check("admins_role", adminRoleCheck(t.role)),
    check("admins_known_by", sql`${t.wallet} IS NOT NULL OR ${t.email} IS NOT NULL`),
  ],
);

/** A person's own admin API keys (`adm_<id>_<secret>`): only the secret's SHA-256 is kept. */
export const adminKeys = pgTable(
  "admin_keys",
  {
    id: text().primaryKey(),
    adminId: text()
      .notNull()
      .references(() => admins.id, { onDelete: "cascade" }),
    name: text().notNull(),
    /** At most its person's role; a key acts with the lower of the two. */
    role: text({ enum: ADMIN_ROLES }).notNull(),
    secretHash: text().notNull(),
    createdAt: timestamptz().notNull(),
    expiresAt: timestamptz().notNull(),
  },
  (t) => [
    index("admin_keys_admin").on(t.adminId),
    check("admin_keys_role", adminRoleCheck(t.role)),
  ],
);

export const sessions = pgTable(
  "sessions",
  {
    tokenHash: text().primaryKey(),
    via: text({ enum: ["api_key", "personal_key", "wallet", "oidc"] }).notNull(),
    address: text(),
    /** For a session opened with the admin key: which key, so that a new key ends it. */
    adminKeyFingerprint: text(),
    /** For a session opened with a personal admin key: revoking the key ends it. */
    adminKeyId: text().references(() => adminKeys.id, { onDelete: "cascade" }),
    /** For a session opened with OIDC: the identity's (verified) email. */
    email: text(),
    /** For a session opened with OIDC: the role OIDC_ROLE_RULES gave at sign-in, if any. */
    role: text(),
    createdAt: timestamptz().notNull(),
    expiresAt: timestamptz().notNull(),
  },
  (t) => [
    index("sessions_expiry").on(t.expiresAt),
    // Revoking a key deletes its sessions through the foreign key's cascade.
    index("sessions_admin_key").on(t.adminKeyId),
    check("sessions_via", sql`${t.via} IN ('api_key', 'personal_key', 'wallet', 'oidc')`),
  ],
);

/**
 * OIDC sign-ins under way, from the start path's redirect to the provider's callback. Only the
 * state's SHA-256 and the browser binding's are kept; the callback deletes the row it spends, so
 * a state works once.
 */
export const oidcAttempts = pgTable(
  "oidc_attempts",
  {
    stateHash: text().primaryKey(),
    codeVerifier: text().notNull(),
    nonce: text().notNull(),
    /** The dashboard path to go to once signed in (checked when stored). */
    next: text(),
    /** SHA-256 of the random value in the browser's binding cookie (login CSRF protection). */
    bindingHash: text().notNull(),
    /** The keyed hash of the client's address, which bounds the attempts it has under way. */
    client: text().notNull().default(""),
    createdAt: timestamptz().notNull(),
    expiresAt: timestamptz().notNull(),
  },
  (t) => [
    index("oidc_attempts_expiry").on(t.expiresAt),
    index("oidc_attempts_client").on(t.client, t.expiresAt),
  ],
);

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
    userAddress: text().notNull(),
    workerName: text(),
    workerUuid: text(),
    proposalHash: text(),
    proposalId: integer(),
    deploymentDetails: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    proposal: jsonb().$type<Record<string, unknown>>().notNull(),
    status: text({ enum: DEPLOYMENT_STATUSES }).notNull().default("init"),
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

/** The first refusal by a limit in a period at a value, so that `agent.limit_reached` goes once. */
export const limitNotices = pgTable(
  "limit_notices",
  {
    aid: text()
      .notNull()
      .references(() => agents.aid, { onDelete: "cascade" }),
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

/** An admin's webhook endpoint; its signing secret is encrypted and never shown again. */
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
    disabledReason: text(),
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
  status_code: number | null;
  duration_ms: number;
  response_excerpt: string | null;
  error: string | null;
};

/**
 * The outbox: one row per event and subscribed endpoint, written with the event so it is never
 * lost. A claim moves `next_attempt_at` ahead by a lease, so a dead sender's claim comes due again.
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
    finishedAt: timestamptz(),
  },
  (t) => [
    // A claim takes each endpoint's first due deliveries and counts its attempts in flight here.
    index("webhook_deliveries_due_by_endpoint")
      .on(t.endpointId, t.nextAttemptAt, t.id)
      .where(sql`${t.status} = 'pending'`),
    index("webhook_deliveries_by_endpoint").on(t.endpointId, t.id),
    index("webhook_deliveries_finished").on(t.finishedAt),
    check("webhook_deliveries_status", sql`${t.status} IN ('pending', 'delivered', 'failed')`),
  ],
);

/**
 * The request log: one row per chat request that reached the chat engine, written in batches
 * (server/request-log/recorder.ts). No foreign key to the agent: a deleted agent's rows stay until
 * they are old enough, and the insert checks nothing on the chat's path.
 */
export const requestLog = pgTable(
  "request_log",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    startedAt: timestamptz().notNull(),
    via: text({ enum: REQUEST_VIAS }).notNull(),
    aid: text().notNull(),
    caller: text().notNull(),
    chatId: text().notNull(),
    status: integer().notNull(),
    code: text(),
    latencyMs: integer().notNull(),
    model: text(),
    /** The agent's model endpoint that answered; null for the configured provider. */
    endpoint: text(),
    inputTokens: integer(),
    outputTokens: integer(),
    cost: numeric({ mode: "number" }),
    requestId: text(),
    /** The requests the entry stands for: more than 1 for a sample of refusals naming no agent. */
    standsFor: integer().notNull().default(1),
    /** A refusal whose aid named no agent when it was written (sampled, summed apart). */
    unknownAgent: boolean().notNull().default(false),
  },
  (t) => [
    // Newest first, over all entries and by each filter of the listing, so that a page reads
    // only its own entries however rare they are; the age purge reads the first.
    index("request_log_recent").on(t.startedAt, t.id),
    index("request_log_by_agent").on(t.aid, t.startedAt, t.id),
    index("request_log_by_caller").on(t.caller, t.startedAt, t.id),
    index("request_log_by_status").on(t.status, t.startedAt, t.id),
    index("request_log_failed").on(t.startedAt, t.id).where(sql`${t.status} <> 200`),
    index("request_log_agent_failed").on(t.aid, t.startedAt, t.id).where(sql`${t.status} <> 200`),
    check(
      "request_log_via",
      sql`${t.via} IN (${sql.raw(REQUEST_VIAS.map((via) => `'${via}'`).join(", "))})`,
    ),
  ],
);

/**
 * The request log summed by hour (request_log_hours) and by day (request_log_days), agent, model
 * and caller group, kept equal to its entries by triggers on every insert and delete (migration
 * 0018): the breakdown reads whole days and hours here, and entries only at its ends.
 */
const requestLogSums = (name: string) =>
  pgTable(
    name,
    {
      startsAt: timestamptz().notNull(),
      /** The entry's aid, or '' for refusals naming no agent: made-up aids are not a row each. */
      aid: text().notNull(),
      model: text(),
      /** `key:<id>` for an agent key that was let in, `key` for others, else the caller's kind. */
      callerGroup: text().notNull(),
      requests: bigint({ mode: "number" }).notNull(),
      delivered: bigint({ mode: "number" }).notNull(),
      inputTokens: bigint({ mode: "number" }).notNull(),
      outputTokens: bigint({ mode: "number" }).notNull(),
      cost: numeric({ mode: "number" }).notNull(),
      /** Entries with a cost: none means the group's cost is unknown, not 0. */
      priced: bigint({ mode: "number" }).notNull(),
    },
    (t) => [
      unique(`${name}_group`).on(t.startsAt, t.aid, t.model, t.callerGroup).nullsNotDistinct(),
      index(`${name}_by_agent`).on(t.aid, t.startsAt),
    ],
  );

export const requestLogHours = requestLogSums("request_log_hours");
export const requestLogDays = requestLogSums("request_log_days");

/**
 * A chat's or run's model turn waiting for people to approve tool calls it asked for
 * (server/approvals). It holds the chat's message reservation (or keeps the run `running`) until
 * it is resumed, ends or expires; `state` is what the model had said and been told so far.
 */
export const pausedTurns = pgTable(
  "paused_turns",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    aid: text()
      .notNull()
      .references(() => agents.aid, { onDelete: "cascade" }),
    /** How the chat came in (a request_log via), or `run` for an autonomous run. */
    via: text().notNull(),
    /** The thread's caller (server/callers: callerId). */
    caller: text().notNull(),
    /** The scope of the agent key that asked (callerScope), which may decide; null: admin only. */
    scope: text(),
    chatId: text().notNull(),
    reservationId: bigint({ mode: "number" }),
    runId: bigint({ mode: "number" }).references(() => autonomousRuns.id, {
      onDelete: "cascade",
    }),
    state: jsonb().notNull(),
    pausedAt: timestamptz().notNull(),
    expiresAt: timestamptz().notNull(),
    /** Set while one process resumes it; past it, that process is taken to have died. */
    resumingUntil: timestamptz(),
  },
  (t) => [
    index("paused_turns_expiry").on(t.expiresAt),
    index("paused_turns_reservation").on(t.reservationId),
    index("paused_turns_run").on(t.runId),
    index("paused_turns_caller").on(t.aid, t.caller),
  ],
);

/** One tool call of a paused turn that waits for a decision, or has one. */
export const toolApprovals = pgTable(
  "tool_approvals",
  {
    id: uuid().primaryKey(),
    turnId: bigint({ mode: "number" })
      .notNull()
      .references(() => pausedTurns.id, { onDelete: "cascade" }),
    aid: text().notNull(),
    /** The model's id for the call. */
    callId: text().notNull(),
    server: text().notNull(),
    tool: text().notNull(),
    arguments: jsonb(),
    requestedAt: timestamptz().notNull(),
    decision: text({ enum: ["approve", "deny"] }),
    reason: text(),
    decidedAt: timestamptz(),
    /** Who decided: `admin`, or the deciding key's caller id. */
    decidedBy: text(),
  },
  (t) => [
    index("tool_approvals_pending").on(t.aid, t.requestedAt).where(sql`${t.decision} IS NULL`),
    index("tool_approvals_turn").on(t.turnId),
    check("tool_approvals_decision", sql`${t.decision} IN ('approve', 'deny')`),
  ],
);

/**
 * Who changed what, recorded in the change's own transaction (server/audit): secrets never, only
 * that they changed. Only admins' writes add rows; kept AUDIT_RETENTION_DAYS.
 */
export const auditLog = pgTable(
  "audit_log",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    at: timestamptz().notNull(),
    /** `admin-key`, `wallet:0x…` (a signed-in admin wallet), or `system` (the service itself). */
    actor: text().notNull(),
    /** How the actor was known: `key` (a bearer key), `session` (the dashboard), `system`. */
    actorVia: text().notNull(),
    /** `<thing>.<verb>`: agent.created, agent_key.revoked, webhook.secret_rotated, … */
    action: text().notNull(),
    /** `<kind>:<id>`: agent:support-bot, agent_key:support-bot/ak_…, webhook:wh_… */
    target: text().notNull(),
    before: jsonb(),
    after: jsonb(),
    /** The X-Request-Id of the change's answer. */
    requestId: text(),
    /** The keyed hash of the client's address (server/callers), as throttles know it. */
    client: text(),
  },
  (t) => [
    index("audit_log_at").on(t.at),
    index("audit_log_target").on(t.target, t.id),
    index("audit_log_actor").on(t.actor, t.id),
    index("audit_log_action").on(t.action, t.id),
  ],
);

/**
 * Refusals naming no agent, counted per client and hour (and for all clients under ''): the
 * recorder's insert samples them by these counts, decided in its one statement.
 */
export const requestLogMissingAgent = pgTable(
  "request_log_missing_agent",
  {
    client: text().notNull(),
    hour: timestamptz().notNull(),
    refusals: bigint({ mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.client, t.hour] })],
);

export type AgentRow = typeof agents.$inferSelect;
export type AutonomousRunRow = typeof autonomousRuns.$inferSelect;
export type DeploymentRow = typeof deployments.$inferSelect;
export type DeploymentHistoryRow = typeof deploymentStatusHistory.$inferSelect;
export type AgentQuotaRow = typeof agentQuotaView.$inferSelect;
export type AgentQuotaCountsRow = typeof agentQuotas.$inferSelect;
export type AgentTokenUsageRow = typeof agentTokenUsage.$inferSelect;
export type ChatMessageRow = typeof chatMessages.$inferSelect;
export type ChatThreadRow = typeof chatThreads.$inferSelect;
export type AgentKeyRow = typeof agentKeys.$inferSelect;
export type SessionRow = typeof sessions.$inferSelect;
export type AdminRow = typeof admins.$inferSelect;
export type AdminKeyRow = typeof adminKeys.$inferSelect;
export type ModelPriceRow = typeof modelPrices.$inferSelect;
export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
export type RequestLogRow = typeof requestLog.$inferSelect;
