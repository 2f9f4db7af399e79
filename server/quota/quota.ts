import { and, eq, inArray, isNull, lt, or, type SQL, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { prepared } from "@/db/prepared";
import { rowsOf } from "@/db/rows";
import { type AgentQuotaRow, agentQuotas } from "@/db/schema";
import type { Clock } from "@/server/clock";
import type { QuotaLimits } from "@/server/config";
import { AppError } from "@/server/errors";
import { writeReliably } from "@/server/write-reliably";
import {
  nextUtcDayStart,
  nextUtcMonthStart,
  periodsAt,
  secondsUntil,
  utcDay,
  utcMonth,
} from "./periods";
import { QUOTA_COUNTERS, type Quota, type QuotaCounterName, type QuotaLimitField } from "./schema";
import {
  TOKEN_BUDGETS,
  type TokenBudget,
  tokenFigure,
  tokensUsed,
  withinTokenBudgets,
} from "./tokens";

/**
 * The quota model: per agent, message counters (total, monthly, daily) and autonomous-run
 * counters (total, monthly), each with a limit where null means unlimited.
 *
 * A consume is one UPDATE that checks every limit against the effective counts and increments
 * them, so no number of concurrent callers can pass a limit: PostgreSQL re-checks the WHERE
 * clause against the newest row version once a concurrent update commits. Daily and monthly
 * resets happen lazily in that same statement: a counter whose stored period is not the
 * current one counts as 0 and restarts at 1. No cron job, nothing to miss.
 */

export type QuotaKind = "message" | "autonomous";
type Period = "total" | "monthly" | "daily";

type CounterKey = keyof AgentQuotaRow & `${string}Count${string}`;
type LimitKey = keyof AgentQuotaRow & (`${string}Limit${string}` | `tokenLimit${string}`);
type PeriodKey = "messageMonth" | "messageDay" | "autonomousMonth";

type Counter = {
  period: Period;
  count: CounterKey;
  limit: LimitKey;
  limitField: QuotaLimitField;
  /** Column naming the day or month the count belongs to; none for totals. */
  periodColumn?: PeriodKey;
};

const COUNTERS: Record<QuotaKind, Counter[]> = {
  message: [
    {
      period: "total",
      count: "messageCountTotal",
      limit: "messageLimitTotal",
      limitField: "message_limit_total",
    },
    {
      period: "monthly",
      count: "messageCountMonthly",
      limit: "messageLimitMonthly",
      limitField: "message_limit_monthly",
      periodColumn: "messageMonth",
    },
    {
      period: "daily",
      count: "messageCountDaily",
      limit: "messageLimitDaily",
      limitField: "message_limit_daily",
      periodColumn: "messageDay",
    },
  ],
  autonomous: [
    {
      period: "total",
      count: "autonomousCountTotal",
      limit: "autonomousLimitTotal",
      limitField: "autonomous_limit_total",
    },
    {
      period: "monthly",
      count: "autonomousCountMonthly",
      limit: "autonomousLimitMonthly",
      limitField: "autonomous_limit_monthly",
      periodColumn: "autonomousMonth",
    },
  ],
};

const LAST_AT = { message: "lastMessageAt", autonomous: "lastAutonomousAt" } as const;

/** What a successful consume took, so that exactly that can be given back. */
export type Reservation = { aid: string; kind: QuotaKind; day: string; month: string };

export type QuotaExceeded = {
  kind: QuotaKind;
  period: Period;
  limitField: QuotaLimitField;
  limit: number;
  /** When the limit frees; null when it never will by itself (a total, or a limit of 0). */
  resetsAt: Date | null;
  retryAfterS: number | null;
  detail: string;
};

export type ConsumeResult =
  | { ok: true; reservation: Reservation; row: AgentQuotaRow }
  | { ok: false; exceeded: QuotaExceeded }
  | { ok: false; exceeded?: undefined; notFound: true };

type QuotaContext = { db: Db; clock: Clock };

const periodValue = <T>(counter: Counter, day: T, month: T): T =>
  counter.periodColumn === "messageDay" ? day : month;

/** The count as of `day`/`month`: 0 when the stored period is an earlier one. */
function effectiveCount(counter: Counter, day: unknown, month: unknown): SQL {
  const count = agentQuotas[counter.count];
  if (!counter.periodColumn) return sql`${count}`;
  const stored = agentQuotas[counter.periodColumn];
  return sql`(CASE WHEN ${stored} = ${periodValue(counter, day, month)} THEN ${count} ELSE 0 END)`;
}

/** What a consume counts in, for `consumeUpdate`: the UTC day and month of `now`. */
export function consumePeriods(now: Date) {
  return { day: utcDay(now), month: utcMonth(now), now: now.toISOString() };
}

/** Atomically checks every limit of `kind` and counts one use. */
export async function consumeQuota(
  { db, clock }: QuotaContext,
  aid: string,
  kind: QuotaKind,
): Promise<ConsumeResult> {
  const consume = consumeStatement(db, kind);
  // A refused consume is followed by a read to say which limit was hit; if a refund slipped in
  // between and nothing is exhausted any more, trying again is the honest answer.
  for (let attempt = 0; attempt < 3; attempt++) {
    const now = clock.now();
    const day = utcDay(now);
    const month = utcMonth(now);
    // Placeholders skip drizzle's column mapping: dates go as ISO strings, as the driver expects.
    const [row] = await consume.execute({ aid, day, month, now: now.toISOString() });
    if (row) return { ok: true, reservation: { aid, kind, day, month }, row };

    const [current] = await db.select().from(agentQuotas).where(eq(agentQuotas.aid, aid));
    const refused = refusalOf(current, kind, now);
    if (refused) return refused;
  }
  throw quotaKeptChanging(aid);
}

/**
 * A use that was refused three times by a limit that no read after could find reached: uses
 * were given back (chats that failed) at each of those moments. The limit was reached each
 * time, but not now, so neither 429 nor a wait until the reset is true; a second is.
 */
export function quotaKeptChanging(aid: string): AppError {
  return new AppError(
    "service_unavailable",
    `The quota of agent '${aid}' was changing under many chats at once; try again in a moment.`,
    { retryAfterS: 1 },
  );
}

/**
 * The same check-and-increment for many agents at once (a scheduler claim): one UPDATE for all
 * of them, then one read to say why the refused ones were refused. Returns a result per aid.
 */
export async function consumeQuotaOfMany(
  { db, clock }: QuotaContext,
  aids: readonly string[],
  kind: QuotaKind,
): Promise<Map<string, ConsumeResult>> {
  const results = new Map<string, ConsumeResult>();
  let pending = [...aids];
  // As in consumeQuota: a refusal that no limit explains (a refund slipped in) is tried again.
  for (let attempt = 0; attempt < 3 && pending.length > 0; attempt++) {
    const now = clock.now();
    const day = utcDay(now);
    const month = utcMonth(now);
    const consumed = await consumeUpdate(db, kind, inArray(agentQuotas.aid, pending), {
      day,
      month,
      now: now.toISOString(),
    });
    for (const row of consumed)
      results.set(row.aid, { ok: true, reservation: { aid: row.aid, kind, day, month }, row });
    const refused = pending.filter((aid) => !results.has(aid));
    if (refused.length === 0) return results;

    const current = await db.select().from(agentQuotas).where(inArray(agentQuotas.aid, refused));
    const byAid = new Map(current.map((row) => [row.aid, row]));
    pending = [];
    for (const aid of refused) {
      const refusal = refusalOf(byAid.get(aid), kind, now);
      if (refusal) results.set(aid, refusal);
      else pending.push(aid);
    }
  }
  if (pending.length > 0)
    throw new Error(`Quotas of ${pending.length} agents kept changing; consume gave up`);
  return results;
}

/**
 * Why a consume was refused, from the quota row read after it: no row, or the limit it hit.
 * Undefined when no limit explains it (a refund slipped in between): then try again.
 */
function refusalOf(
  row: AgentQuotaRow | undefined,
  kind: QuotaKind,
  now: Date,
): ConsumeResult | undefined {
  if (!row) return { ok: false, notFound: true };
  const exceeded = findExceeded(row, kind, now);
  return exceeded && { ok: false, exceeded };
}

/** The check-and-increment UPDATE of `kind`, prepared once per database handle. */
function consumeStatement(db: Db, kind: QuotaKind) {
  return prepared(db, `consume-${kind}`, () =>
    consumeUpdate(db, kind, eq(agentQuotas.aid, sql.placeholder("aid")), {
      day: sql.placeholder("day"),
      month: sql.placeholder("month"),
      now: sql.placeholder("now"),
    }).prepare(`consume_${kind}`),
  );
}

/**
 * Counts one use of `kind` on the agents `which` selects, where every limit has room; returns
 * the rows it counted. `day`, `month` and `now` are values or placeholders. Also usable as a
 * WITH clause of a larger statement (the chat's opening read): a refusal is then explained by
 * `consumeQuota`, which tries again and names the limit.
 */
export function consumeUpdate(
  db: Db,
  kind: QuotaKind,
  which: SQL,
  { day, month, now }: { day: unknown; month: unknown; now: unknown },
) {
  const counters = COUNTERS[kind];
  const set: Record<string, unknown> = {
    [LAST_AT[kind]]: sql`${now}`,
    tokenHolds: sql`${agentQuotas.tokenHolds} + 1`,
  };
  for (const counter of counters) {
    set[counter.count] = sql`${effectiveCount(counter, day, month)} + 1`;
    if (counter.periodColumn) set[counter.periodColumn] = sql`${periodValue(counter, day, month)}`;
  }
  const withinLimits = counters.map((counter) =>
    or(
      isNull(agentQuotas[counter.limit]),
      lt(effectiveCount(counter, day, month), agentQuotas[counter.limit]),
    ),
  );
  return db
    .update(agentQuotas)
    .set(set)
    .where(and(which, ...withinLimits, ...withinTokenBudgets(day, month)))
    .returning();
}

/** The reservation of an autonomous run, rebuilt from the month stored with the run. */
export function autonomousReservation(aid: string, month: string): Reservation {
  // Autonomous counters have no daily period: `day` is never read for them.
  return { aid, kind: "autonomous", day: month, month };
}

/** Gives back one use taken by `reservation`, in the periods it was taken from. */
export async function refundQuota({ db }: { db: Db }, reservation: Reservation): Promise<void> {
  const { aid, kind, day, month } = reservation;
  const set: Record<string, SQL> = { tokenHolds: sql`GREATEST(${agentQuotas.tokenHolds} - 1, 0)` };
  for (const counter of COUNTERS[kind]) {
    const count = agentQuotas[counter.count];
    const decremented = sql`GREATEST(${count} - 1, 0)`;
    set[counter.count] = counter.periodColumn
      ? sql`CASE WHEN ${agentQuotas[counter.periodColumn]} = ${periodValue(counter, day, month)} THEN ${decremented} ELSE ${count} END`
      : decremented;
  }
  await db.update(agentQuotas).set(set).where(eq(agentQuotas.aid, aid));
}

/**
 * Gives back the message uses that `released` returns (a data-modifying statement yielding
 * `aid`, `day`, `month` rows, such as a DELETE of chat reservations), in the same statement,
 * each to the periods it was taken from. Returns how many uses it gave back. Used one at a
 * time (a chat that failed) and in bulk (the sweep of chats whose process died).
 */
export async function refundReleasedMessageUses(db: Db, released: SQL): Promise<number> {
  const q = agentQuotas;
  const result = await db.execute(sql`
    WITH released AS (${released}), refunded AS (
      UPDATE ${q} SET
        ${sql.identifier("message_count_total")} = GREATEST(${q.messageCountTotal}
          - (SELECT count(*) FROM released r WHERE r.aid = ${q.aid}), 0),
        ${sql.identifier("message_count_monthly")} = GREATEST(${q.messageCountMonthly}
          - (SELECT count(*) FROM released r WHERE r.aid = ${q.aid} AND r.month = ${q.messageMonth}), 0),
        ${sql.identifier("message_count_daily")} = GREATEST(${q.messageCountDaily}
          - (SELECT count(*) FROM released r WHERE r.aid = ${q.aid} AND r.day = ${q.messageDay}), 0),
        ${sql.identifier("token_holds")} = GREATEST(${q.tokenHolds}
          - (SELECT count(*) FROM released r WHERE r.aid = ${q.aid}), 0)
      WHERE ${q.aid} IN (SELECT aid FROM released)
    )
    SELECT count(*)::int AS uses FROM released`);
  return rowsOf<{ uses: number }>(result)[0]?.uses ?? 0;
}

/** The stored count for `counter` as of `now` (0 when its period has passed). */
export function effectiveCountOf(row: AgentQuotaRow, counter: Counter, now: Date): number {
  if (!counter.periodColumn) return row[counter.count];
  const { day, month } = periodsAt(now);
  return row[counter.periodColumn] === periodValue(counter, day, month) ? row[counter.count] : 0;
}

/** Which limit of `kind` stops the next use, if any; the one that frees last wins. */
export function findExceeded(
  row: AgentQuotaRow,
  kind: QuotaKind,
  now: Date,
): QuotaExceeded | undefined {
  const uses = COUNTERS[kind].map((counter) => ({
    period: counter.period,
    limitField: counter.limitField,
    limit: row[counter.limit],
    used: effectiveCountOf(row, counter, now),
    describe: (limit: number, resetsAt: Date | null) =>
      describeExceeded(row.aid, kind, counter.period, limit, resetsAt),
  }));
  // A budget's tokens in flight count one each (see tokens.ts), as the consume counted them.
  const budgets = TOKEN_BUDGETS.map((budget: TokenBudget) => ({
    period: budget.period,
    limitField: budget.limitField,
    limit: row[budget.limit],
    used: tokensUsed(row, budget, now) + row.tokenHolds,
    describe: (limit: number, resetsAt: Date | null) =>
      describeTokensExceeded(row, budget, limit, resetsAt, now),
  }));
  const hit = [...uses, ...budgets]
    .filter(({ limit, used }) => limit !== null && used >= limit)
    .map((use) => {
      const limit = use.limit as number;
      const resetsAt = limit === 0 ? null : resetTime(use.period, now);
      return { ...use, limit, resetsAt };
    })
    // Never-freeing limits first, then the latest reset: waiting for an earlier one is useless.
    .sort((a, b) => (b.resetsAt?.getTime() ?? Infinity) - (a.resetsAt?.getTime() ?? Infinity));
  const binding = hit[0];
  if (!binding) return undefined;
  const { period, limitField, limit, resetsAt } = binding;
  return {
    kind,
    period,
    limitField,
    limit,
    resetsAt,
    retryAfterS: resetsAt ? secondsUntil(now, resetsAt) : null,
    detail: binding.describe(limit, resetsAt),
  };
}

function resetTime(period: Period, now: Date): Date | null {
  if (period === "daily") return nextUtcDayStart(now);
  if (period === "monthly") return nextUtcMonthStart(now);
  return null;
}

function describeExceeded(
  aid: string,
  kind: QuotaKind,
  period: Period,
  limit: number,
  resetsAt: Date | null,
) {
  const what = kind === "message" ? "message" : "autonomous run";
  const plural = limit === 1 ? what : `${what}s`;
  const label = { total: "Total", monthly: "Monthly", daily: "Daily" }[period];
  const when = resetsAt
    ? `it resets at ${resetsAt.toISOString().replace(".000Z", "Z")}`
    : "it does not reset by itself; an admin can raise it";
  return `${label} ${what} limit reached for agent '${aid}': ${limit.toLocaleString("en")} ${plural} allowed, ${when}.`;
}

function describeTokensExceeded(
  row: AgentQuotaRow,
  budget: TokenBudget,
  limit: number,
  resetsAt: Date | null,
  now: Date,
) {
  const label = { total: "Total", monthly: "Monthly", daily: "Daily" }[budget.period];
  const used = tokensUsed(row, budget, now);
  const inFlight =
    row.tokenHolds > 0
      ? ` and ${row.tokenHolds.toLocaleString("en")} ${row.tokenHolds === 1 ? "reply" : "replies"} in progress`
      : "";
  const when = resetsAt
    ? `it resets at ${resetsAt.toISOString().replace(".000Z", "Z")}`
    : "it does not reset by itself; an admin can raise it";
  return `${label} token limit reached for agent '${row.aid}': ${limit.toLocaleString("en")} tokens allowed, ${used.toLocaleString("en")} used${inFlight}; ${when}.`;
}

/** The quota as the API shows it: effective counts, limits and the next reset times. */
export function presentQuota(row: AgentQuotaRow, now: Date): Quota {
  const count = (kind: QuotaKind, period: Period) => {
    const counter = COUNTERS[kind].find((c) => c.period === period) as Counter;
    return effectiveCountOf(row, counter, now);
  };
  return {
    message_count_total: count("message", "total"),
    message_limit_total: row.messageLimitTotal,
    message_count_monthly: count("message", "monthly"),
    message_limit_monthly: row.messageLimitMonthly,
    message_count_daily: count("message", "daily"),
    message_limit_daily: row.messageLimitDaily,
    autonomous_count_total: count("autonomous", "total"),
    autonomous_limit_total: row.autonomousLimitTotal,
    autonomous_count_monthly: count("autonomous", "monthly"),
    autonomous_limit_monthly: row.autonomousLimitMonthly,
    ...presentTokens(row, now),
    last_message_at: row.lastMessageAt?.toISOString() ?? null,
    last_autonomous_at: row.lastAutonomousAt?.toISOString() ?? null,
    daily_resets_at: periodsAt(now).dailyResetsAt,
    monthly_resets_at: periodsAt(now).monthlyResetsAt,
  };
}

function presentTokens(row: AgentQuotaRow, now: Date) {
  const [total, monthly, daily] = TOKEN_BUDGETS as [TokenBudget, TokenBudget, TokenBudget];
  const figure = (budget: TokenBudget, column: "input" | "output" | "cost") =>
    tokenFigure(row, budget, column, now);
  return {
    input_tokens_total: figure(total, "input"),
    output_tokens_total: figure(total, "output"),
    cost_total: figure(total, "cost"),
    token_limit_total: row.tokenLimitTotal,
    input_tokens_monthly: figure(monthly, "input"),
    output_tokens_monthly: figure(monthly, "output"),
    cost_monthly: figure(monthly, "cost"),
    token_limit_monthly: row.tokenLimitMonthly,
    input_tokens_daily: figure(daily, "input"),
    output_tokens_daily: figure(daily, "output"),
    cost_daily: figure(daily, "cost"),
    token_limit_daily: row.tokenLimitDaily,
  };
}

/** The quota row of a new agent: zero counts in the current periods, the given limits. */
export function newQuotaRow(
  aid: string,
  limits: QuotaLimits,
  now: Date,
): typeof agentQuotas.$inferInsert {
  return {
    aid,
    ...limits,
    messageDay: utcDay(now),
    messageMonth: utcMonth(now),
    autonomousMonth: utcMonth(now),
  };
}

/** Maps API limit fields (snake_case) to row columns. */
export const LIMIT_COLUMNS: Record<QuotaLimitField, LimitKey> = {
  message_limit_total: "messageLimitTotal",
  message_limit_monthly: "messageLimitMonthly",
  message_limit_daily: "messageLimitDaily",
  autonomous_limit_total: "autonomousLimitTotal",
  autonomous_limit_monthly: "autonomousLimitMonthly",
  token_limit_total: "tokenLimitTotal",
  token_limit_monthly: "tokenLimitMonthly",
  token_limit_daily: "tokenLimitDaily",
};

/**
 * Sets the named counters of an agent back to 0 (all of them when none are named), the periodic
 * ones in the current period; the limits stay. False when there is no such agent.
 */
export async function resetQuotaCounts(
  { db, clock }: QuotaContext,
  aid: string,
  counters: readonly QuotaCounterName[] = QUOTA_COUNTERS,
): Promise<boolean> {
  const now = clock.now();
  const set: Partial<typeof agentQuotas.$inferInsert> = {};
  const named = new Set(counters);
  if (named.has("message_total")) set.messageCountTotal = 0;
  if (named.has("message_monthly"))
    Object.assign(set, { messageCountMonthly: 0, messageMonth: utcMonth(now) });
  if (named.has("message_daily"))
    Object.assign(set, { messageCountDaily: 0, messageDay: utcDay(now) });
  if (named.has("autonomous_total")) set.autonomousCountTotal = 0;
  if (named.has("autonomous_monthly"))
    Object.assign(set, { autonomousCountMonthly: 0, autonomousMonth: utcMonth(now) });
  if (named.has("token_total"))
    Object.assign(set, { inputTokensTotal: 0, outputTokensTotal: 0, costTotal: 0 });
  if (named.has("token_monthly"))
    Object.assign(set, {
      inputTokensMonthly: 0,
      outputTokensMonthly: 0,
      costMonthly: 0,
      tokenMonth: utcMonth(now),
    });
  if (named.has("token_daily"))
    Object.assign(set, {
      inputTokensDaily: 0,
      outputTokensDaily: 0,
      costDaily: 0,
      tokenDay: utcDay(now),
    });
  const reset = await db
    .update(agentQuotas)
    .set(set)
    .where(eq(agentQuotas.aid, aid))
    .returning({ aid: agentQuotas.aid });
  return reset.length > 0;
}

/**
 * Gives back a use that was not delivered, even across a database outage (see writeReliably).
 */
export async function refundQuotaReliably(
  { db }: { db: Db },
  reservation: Reservation,
): Promise<void> {
  await writeReliably(`refunding a ${reservation.kind} use of '${reservation.aid}'`, () =>
    refundQuota({ db }, reservation),
  );
}
