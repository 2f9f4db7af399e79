import { sql } from "drizzle-orm";
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
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { DEPLOYMENT_STATUSES, type DeploymentStatus } from "../server/deployments/statuses";

const timestamptz = () => timestamp({ withTimezone: true, mode: "date" });

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
    /** The schedule: when the next autonomous run is due; null while autonomous mode is off. */
    autonomousNextRunAt: timestamptz(),
    createdAt: timestamptz().notNull(),
    updatedAt: timestamptz().notNull(),
  },
  (t) => [
    // What the scheduler claims: due agents in due order.
    index("agents_autonomous_due").on(t.autonomousNextRunAt).where(sql`${t.autonomousEnabled}`),
    check("agents_temperature_range", sql`${t.temperature} BETWEEN 0 AND 2`),
    check("agents_autonomous_minutes_range", sql`${t.autonomousMinutes} BETWEEN 1 AND 525600`),
    check(
      "agents_autonomous_prompt_when_enabled",
      sql`NOT ${t.autonomousEnabled} OR ${t.autonomousPrompt} IS NOT NULL`,
    ),
  ],
);

/**
 * One row per agent with its five counters and five limits (null = unlimited).
 *
 * Kept apart from `agents` because every chat updates it: a narrow, hot row keeps those
 * updates cheap and leaves the configuration row alone. Daily and monthly counters belong to
 * the UTC day or month named beside them; a counter whose period has passed counts as 0, and
 * the statement that next consumes it starts it again (see server/quota/quota.ts).
 */
export const agentQuotas = pgTable(
  "agent_quotas",
  {
    aid: text()
      .primaryKey()
      .references(() => agents.aid, { onDelete: "cascade" }),
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
  ],
);

/** A conversation thread of an agent, with what listing threads needs kept up to date. */
export const chatThreads = pgTable(
  "chat_threads",
  {
    aid: text()
      .notNull()
      .references(() => agents.aid, { onDelete: "cascade" }),
    chatId: text().notNull(),
    messageCount: integer().notNull().default(0),
    createdAt: timestamptz().notNull(),
    lastMessageAt: timestamptz().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.aid, t.chatId] }),
    index("chat_threads_recent").on(t.aid, t.lastMessageAt.desc(), t.chatId),
  ],
);

/** Every delivered message, user and agent. Only exchanges whose reply was delivered are kept. */
export const chatMessages = pgTable(
  "chat_messages",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    aid: text().notNull(),
    chatId: text().notNull(),
    role: text({ enum: ["user", "assistant"] }).notNull(),
    content: text().notNull(),
    createdAt: timestamptz().notNull(),
  },
  (t) => [
    // The history read is "the last N messages of this thread": one backward index range scan.
    index("chat_messages_thread").on(t.aid, t.chatId, t.id),
    foreignKey({
      columns: [t.aid, t.chatId],
      foreignColumns: [chatThreads.aid, chatThreads.chatId],
    }).onDelete("cascade"),
    check("chat_messages_role", sql`${t.role} IN ('user', 'assistant')`),
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
    /** The UTC month whose autonomous quota this run holds, until it finishes or is given back. */
    quotaMonth: date({ mode: "string" }),
  },
  (t) => [
    uniqueIndex("autonomous_runs_slot").on(t.aid, t.dueAt).where(sql`${t.trigger} = 'schedule'`),
    index("autonomous_runs_by_agent").on(t.aid, t.id),
    index("autonomous_runs_in_flight").on(t.startedAt).where(sql`${t.outcome} = 'running'`),
    check("autonomous_runs_trigger", sql`${t.trigger} IN ('schedule', 'manual')`),
    check(
      "autonomous_runs_outcome",
      sql`${t.outcome} IN ('running', 'succeeded', 'failed', 'skipped')`,
    ),
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

export type AgentRow = typeof agents.$inferSelect;
export type AutonomousRunRow = typeof autonomousRuns.$inferSelect;
export type DeploymentRow = typeof deployments.$inferSelect;
export type DeploymentHistoryRow = typeof deploymentStatusHistory.$inferSelect;
export type AgentQuotaRow = typeof agentQuotas.$inferSelect;
export type ChatMessageRow = typeof chatMessages.$inferSelect;
export type ChatThreadRow = typeof chatThreads.$inferSelect;
