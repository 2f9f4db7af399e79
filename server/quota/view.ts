import type { Quota } from "./schema";

// Plain functions without zod, as the dashboard's agents page loads them; the listing applies the
// same rules in SQL (quota-use.ts).

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

/** The share of a limit taken, 0 to 1: a limit of 0 or one reached is full, none is 0. */
export function limitShare({ count, limit }: Pick<QuotaLimit, "count" | "limit">): number {
  return limit === null ? 0 : count >= limit ? 1 : count / limit;
}

export function quotaUse(quota: Quota): number {
  return Math.max(...quotaLimits(quota).map(limitShare));
}

/** The limit nearest to stopping the agent, the first in the dashboard's order among equals. */
export function tightestLimit(quota: Quota): QuotaLimit | undefined {
  let tightest: QuotaLimit | undefined;
  for (const limit of quotaLimits(quota)) {
    if (limit.limit === null) continue;
    if (!tightest || limitShare(limit) > limitShare(tightest)) tightest = limit;
  }
  return tightest;
}

/**
 * A meter's colour: `warn` from 80% of the limit, `danger` at it. Compared in whole numbers, so
 * the line is exactly the listing's `quota=near` filter's (4 of 5 is amber, 2 of 3 is not).
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
