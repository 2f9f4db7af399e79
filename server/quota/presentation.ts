import type { AgentQuotaRow } from "@/db/schema";
import { COUNTERS, type Counter, effectiveCountOf, type Period, type QuotaKind } from "./counters";
import { periodsAt } from "./periods";
import type { Quota } from "./schema";
import { TOKEN_BUDGETS, type TokenBudget, tokenFigure } from "./tokens";

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
