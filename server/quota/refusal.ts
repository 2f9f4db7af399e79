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

/**
 * Which limit of `kind` stops the next use, if any; the one that frees last wins. `hold` is the
 * tokens that use would hold against the budgets (one for a run, a chat's input estimate).
 */
export function findExceeded(
  row: AgentQuotaRow,
  kind: QuotaKind,
  now: Date,
  hold = 1,
): QuotaExceeded | undefined {
  const uses = COUNTERS[kind].map((counter) => ({
    period: counter.period,
    limitField: counter.limitField,
    limit: row[counter.limit],
    used: effectiveCountOf(row, counter, now),
    describe: (limit: number, resetsAt: Date | null) =>
      describeExceeded(row.aid, kind, counter.period, limit, resetsAt),
  }));
  // A budget counts the tokens held in flight and this use's own hold, as the reserve did
  // (see tokens.ts): it stops the use when they do not fit beside the tokens used.
  const budgets = TOKEN_BUDGETS.map((budget: TokenBudget) => ({
    period: budget.period,
    limitField: budget.limitField,
    limit: row[budget.limit],
    used: tokensUsed(row, budget, now) + row.tokenHolds + hold - 1,
    never: row[budget.limit] !== null && hold > (row[budget.limit] as number),
    describe: (limit: number, resetsAt: Date | null) =>
      describeTokensExceeded(row, budget, { limit, hold, resetsAt }, now),
  }));
  const hit = [...uses.map((use) => ({ ...use, never: false })), ...budgets]
    .filter(({ limit, used }) => limit !== null && used >= limit)
    .map((use) => {
      const limit = use.limit as number;
      // A hold larger than the whole budget does not fit after any reset either.
      const resetsAt = limit === 0 || use.never ? null : resetTime(use.period, now);
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
  { limit, hold, resetsAt }: { limit: number; hold: number; resetsAt: Date | null },
  now: Date,
) {
  const label = { total: "Total", monthly: "Monthly", daily: "Daily" }[budget.period];
  const n = (count: number) => count.toLocaleString("en");
  const head = `${label} token limit reached for agent '${row.aid}': ${n(limit)} tokens allowed`;
  if (hold > limit)
    return `${head}, and this chat's input alone is estimated at ${n(hold)} tokens; send a shorter one, or an admin can raise the limit.`;
  const used = tokensUsed(row, budget, now);
  const inFlight =
    row.tokenHolds > 0 ? ` and ${n(row.tokenHolds)} held by replies in progress` : "";
  // A run holds one token; a chat's estimated input is said when it is what does not fit.
  const needed = hold > 1 ? `, this chat's input is estimated at ${n(hold)}` : "";
  return `${head}, ${n(used)} used${inFlight}${needed}; ${whenItFrees(resetsAt)}.`;
}

function whenItFrees(resetsAt: Date | null): string {
  return resetsAt
    ? `it resets at ${resetsAt.toISOString().replace(".000Z", "Z")}`
    : "it does not reset by itself; an admin can raise it";
}
