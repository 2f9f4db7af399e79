import type { Quota } from "./schema";

/**
 * What the dashboard computes from an agent's quota figures, as plain functions without zod
 * (its agents page loads them, and must stay small). The listing sorts and filters by the same
 * rule in SQL (quota-use.ts).
 */

/**
 * An agent's quota use: the highest share of any of its limits taken (the five counters and the three token budgets), from 0 to 1. A limit
 * of 0, or one reached, counts as full; an unlimited counter counts as 0. The listing sorts and
 * filters by the same rule in SQL (`quotaUseSql`).
 */
export function quotaUse(quota: Quota): number {
  const share = (count: number, limit: number | null) =>
    limit === null ? 0 : count >= limit ? 1 : count / limit;
  return Math.max(
    share(quota.message_count_total, quota.message_limit_total),
    share(quota.message_count_monthly, quota.message_limit_monthly),
    share(quota.message_count_daily, quota.message_limit_daily),
    share(quota.autonomous_count_total, quota.autonomous_limit_total),
    share(quota.autonomous_count_monthly, quota.autonomous_limit_monthly),
    share(quota.input_tokens_total + quota.output_tokens_total, quota.token_limit_total),
    share(quota.input_tokens_monthly + quota.output_tokens_monthly, quota.token_limit_monthly),
    share(quota.input_tokens_daily + quota.output_tokens_daily, quota.token_limit_daily),
  );
}

/** When the agent was last used: its last message or autonomous run, whichever is later. */
export function lastActivity(quota: Quota): string | null {
  const { last_message_at: message, last_autonomous_at: run } = quota;
  if (!message || !run) return message ?? run;
  return message > run ? message : run;
}
