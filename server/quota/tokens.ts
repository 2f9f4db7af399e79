import { isNull, lt, or, type SQL, sql } from "drizzle-orm";
import { type AgentQuotaRow, agentQuotas } from "@/db/schema";
import type { Period } from "./counters";
import { periodsAt } from "./periods";
import type { QuotaLimitField } from "./schema";

/**
 * Token counters and budgets. A reply's tokens are known only once it ends, so they are added
 * by the statement that stores it (the settle, settle.ts: with its cost and its hour of usage),
 * never guessed ahead. A
 * budget is checked when a chat or run starts: it may start while the tokens used, plus one for
 * each chat or run still in flight (`token_holds`), are under the limit. So a reply that crosses
 * the limit is delivered and counted, the next start is refused, and however many start at once
 * at the boundary, no more start than there are tokens left.
 */

export type TokenBudget = {
  period: Period;
  limit: "tokenLimitTotal" | "tokenLimitMonthly" | "tokenLimitDaily";
  limitField: QuotaLimitField;
  input: "inputTokensTotal" | "inputTokensMonthly" | "inputTokensDaily";
  output: "outputTokensTotal" | "outputTokensMonthly" | "outputTokensDaily";
  cost: "costTotal" | "costMonthly" | "costDaily";
  /** Column naming the day or month the count belongs to; none for totals. */
  periodColumn?: "tokenMonth" | "tokenDay";
};

export const TOKEN_BUDGETS: TokenBudget[] = [
  {
    period: "total",
    limit: "tokenLimitTotal",
    limitField: "token_limit_total",
    input: "inputTokensTotal",
    output: "outputTokensTotal",
    cost: "costTotal",
  },
  {
    period: "monthly",
    limit: "tokenLimitMonthly",
    limitField: "token_limit_monthly",
    input: "inputTokensMonthly",
    output: "outputTokensMonthly",
    cost: "costMonthly",
    periodColumn: "tokenMonth",
  },
  {
    period: "daily",
    limit: "tokenLimitDaily",
    limitField: "token_limit_daily",
    input: "inputTokensDaily",
    output: "outputTokensDaily",
    cost: "costDaily",
    periodColumn: "tokenDay",
  },
];

/** `day` or `month`, whichever period the budget counts in. */
export const periodOf = <T>(budget: TokenBudget, day: T, month: T): T =>
  budget.periodColumn === "tokenDay" ? day : month;

/** `column` as of `day`/`month`: itself in the stored period, else 0. */
export function inPeriod(budget: TokenBudget, column: unknown, day: unknown, month: unknown): SQL {
  if (!budget.periodColumn) return sql`${column}`;
  const stored = agentQuotas[budget.periodColumn];
  return sql`(CASE WHEN ${stored} = ${periodOf(budget, day, month)} THEN ${column} ELSE 0 END)`;
}

/** The WHERE terms of a reserve: every budget has room for one more start. */
export function withinTokenBudgets(day: unknown, month: unknown): SQL[] {
  return TOKEN_BUDGETS.map(
    (budget) =>
      or(
        isNull(agentQuotas[budget.limit]),
        lt(
          sql`${inPeriod(budget, sql`${agentQuotas[budget.input]} + ${agentQuotas[budget.output]}`, day, month)} + ${agentQuotas.tokenHolds}`,
          agentQuotas[budget.limit],
        ),
      ) as SQL,
  );
}

/** Tokens used in the budget's period as of `now`, in the row as read. */
export function tokensUsed(row: AgentQuotaRow, budget: TokenBudget, now: Date): number {
  if (!budget.periodColumn) return row[budget.input] + row[budget.output];
  const { day, month } = periodsAt(now);
  return row[budget.periodColumn] === periodOf(budget, day, month)
    ? row[budget.input] + row[budget.output]
    : 0;
}

/** A counter of the row (tokens in or out, or cost) as of `now`: 0 once its period is over. */
export function tokenFigure(
  row: AgentQuotaRow,
  budget: TokenBudget,
  column: "input" | "output" | "cost",
  now: Date,
): number {
  const value = Number(row[budget[column]]);
  if (!budget.periodColumn) return value;
  const { day, month } = periodsAt(now);
  return row[budget.periodColumn] === periodOf(budget, day, month) ? value : 0;
}
