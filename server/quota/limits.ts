import type { agentQuotas } from "@/db/schema";
import type { QuotaLimits } from "@/server/frame/config";
import type { LimitKey } from "./counters";
import { utcDay, utcMonth } from "./periods";
import type { QuotaLimitField } from "./schema";

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
