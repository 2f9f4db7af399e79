import type { Quota } from "./schema";

/**
 * What the dashboard computes from an agent's quota figures, as plain functions without zod
 * (its agents page loads them, and must stay small). The listing sorts and filters by the same
 * rules in SQL (quota-use.ts).
 */

/** An agent's eight limits: five counters of uses and three token budgets (input + output). */
export const QUOTA_LIMIT_IDS = [
  "message_count_daily",
  "message_count_monthly",
  "message_count_total",
  "autonomous_count_monthly",
  "autonomous_count_total",
  "tokens_daily",
  "tokens_monthly",
  "tokens_total",
] as const;

export type QuotaLimitId = (typeof QUOTA_LIMIT_IDS)[number];

/** One limit of an agent: what it has counted, and its limit (null: none). */
export type QuotaLimit = { id: QuotaLimitId; count: number; limit: number | null };

/** The counters with a limit each, in the order the dashboard shows them. */
export function quotaLimits(q: Quota): QuotaLimit[] {
  const tokens = (period: "daily" | "monthly" | "total"): QuotaLimit => ({
    id: `tokens_${period}`,
    count: q[`input_tokens_${period}`] + q[`output_tokens_${period}`],
    limit: q[`token_limit_${period}`],
  });
  return [
    { id: "message_count_daily", count: q.message_count_daily, limit: q.message_limit_daily },
    { id: "message_count_monthly", count: q.message_count_monthly, limit: q.message_limit_monthly },
    { id: "message_count_total", count: q.message_count_total, limit: q.message_limit_total },
    {
      id: "autonomous_count_monthly",
      count: q.autonomous_count_monthly,
      limit: q.autonomous_limit_monthly,
    },
    {
      id: "autonomous_count_total",
      count: q.autonomous_count_total,
      limit: q.autonomous_limit_total,
    },
    tokens("daily"),
    tokens("monthly"),
    tokens("total"),
  ];
}

/**
 * The share of a limit taken, from 0 to 1. A limit of 0, or one reached, counts as full; an
 * unlimited counter counts as 0. The listing sorts and filters by the same rule in SQL
 * (`quotaUseSql`).
 */
export function limitShare({ count, limit }: Pick<QuotaLimit, "count" | "limit">): number {
  return limit === null ? 0 : count >= limit ? 1 : count / limit;
}

/** An agent's quota use: the highest share of any of its eight limits taken, from 0 to 1. */
export function quotaUse(quota: Quota): number {
  return Math.max(...quotaLimits(quota).map(limitShare));
}

/**
 * The limit nearest to stopping the agent (the one its quota use is the share of), the first
 * in the dashboard's order among equals; undefined when it has no limits at all.
 */
export function tightestLimit(quota: Quota): QuotaLimit | undefined {
  let tightest: QuotaLimit | undefined;
  for (const limit of quotaLimits(quota)) {
    if (limit.limit === null) continue;
    if (!tightest || limitShare(limit) > limitShare(tightest)) tightest = limit;
  }
  return tightest;
}

/**
 * How near a count is to its limit, as its meter is coloured: `warn` from 80% of the limit,
 * `danger` at it (a limit of 0 is reached at once). Compared in whole numbers, so 80% is exactly
 * the line the listing's `quota=near` filter draws (4 of 5 is amber, 2 of 3 is not).
 */
export function limitTone({ count, limit }: Pick<QuotaLimit, "count" | "limit">) {
  if (limit === null) return "ok";
  if (count >= limit) return "danger";
  return count * 5 >= limit * 4 ? "warn" : "ok";
}

/** When the agent was last used: its last message or autonomous run, whichever is later. */
export function lastActivity(quota: Quota): string | null {
  const { last_message_at: message, last_autonomous_at: run } = quota;
  if (!message || !run) return message ?? run;
  return message > run ? message : run;
}
