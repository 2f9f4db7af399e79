import type { AgentQuotaRow } from "@/db/schema";
import { AppError } from "@/server/frame/errors";
import { COUNTERS, effectiveCountOf, type Period, type QuotaKind } from "./counters";
import { nextUtcDayStart, nextUtcMonthStart, secondsUntil } from "./periods";
import type { QuotaLimitField } from "./schema";
import { TOKEN_BUDGETS, type TokenBudget, tokensUsed } from "./tokens";

/**
 * A refused use: which limit stopped it, the sentence that says so, and when to try again
 * (Retry-After). Worked out from the quota row as read after the reserve counted nothing.
 */

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
  // A budget's tokens in flight count one each (see tokens.ts), as the reserve counted them.
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

export function quotaExceededError({
  detail,
  retryAfterS,
  limitField,
  limit,
}: QuotaExceeded): AppError {
  return new AppError("quota_exceeded", detail, {
    ...(retryAfterS === null ? {} : { retryAfterS }),
    limit: limitField,
    limit_value: limit,
  });
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
  return `${label} ${what} limit reached for agent '${aid}': ${limit.toLocaleString("en")} ${plural} allowed, ${whenItFrees(resetsAt)}.`;
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
  return `${label} token limit reached for agent '${row.aid}': ${limit.toLocaleString("en")} tokens allowed, ${used.toLocaleString("en")} used${inFlight}; ${whenItFrees(resetsAt)}.`;
}

function whenItFrees(resetsAt: Date | null): string {
  return resetsAt
    ? `it resets at ${resetsAt.toISOString().replace(".000Z", "Z")}`
    : "it does not reset by itself; an admin can raise it";
}
