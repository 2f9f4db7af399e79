import { type SQL, sql } from "drizzle-orm";
import { type AgentQuotaCountsRow, type AgentQuotaRow, agentQuotas } from "@/db/schema";
import { periodsAt } from "./periods";
import type { QuotaLimitField } from "./schema";

/**
 * The quota counters, each with a limit (null: unlimited). Daily and monthly counters reset
 * lazily: each stores the period it counts, and an earlier period counts as 0, so no job can miss.
 */

export type QuotaKind = "message" | "autonomous";
export type Period = "total" | "monthly" | "daily";

type CounterKey = keyof AgentQuotaRow & `${string}Count${string}`;
export type LimitKey = keyof AgentQuotaRow & (`${string}Limit${string}` | `tokenLimit${string}`);
type PeriodKey = "messageMonth" | "messageDay" | "autonomousMonth";

export type Counter = {
  period: Period;
  count: CounterKey;
  limit: LimitKey;
  limitField: QuotaLimitField;
  /** Column naming the day or month the count belongs to; none for totals. */
  periodColumn?: PeriodKey;
};

export const COUNTERS: Record<QuotaKind, Counter[]> = {
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

export const LAST_AT = { message: "lastMessageAt", autonomous: "lastAutonomousAt" } as const;

export const periodValue = <T>(counter: Counter, day: T, month: T): T =>
  counter.periodColumn === "messageDay" ? day : month;

/** The count as of `day`/`month`, in SQL: 0 when the stored period is an earlier one. */
export function effectiveCount(counter: Counter, day: unknown, month: unknown): SQL {
  const count = agentQuotas[counter.count];
  if (!counter.periodColumn) return sql`${count}`;
  const stored = agentQuotas[counter.periodColumn];
  return sql`(CASE WHEN ${stored} = ${periodValue(counter, day, month)} THEN ${count} ELSE 0 END)`;
}

/** The stored count for `counter` as of `now`, in the row as read (0 when its period has passed). */
export function effectiveCountOf(row: AgentQuotaRow, counter: Counter, now: Date): number {
  if (!counter.periodColumn) return row[counter.count];
  const { day, month } = periodsAt(now);
  return row[counter.periodColumn] === periodValue(counter, day, month) ? row[counter.count] : 0;
}

/** The row as it was after its use, of a statement that counted `later` more of its agent after it. */
export function withoutLaterUses<R extends AgentQuotaCountsRow>(row: R, later: number): R {
  if (later === 0) return row;
  const counts: Partial<AgentQuotaCountsRow> = {};
  for (const counter of COUNTERS.message) counts[counter.count] = row[counter.count] - later;
  return { ...row, ...counts };
}
