import { type SQL, sql } from "drizzle-orm";
import {
  type AgentQuotaCountsRow,
  type AgentQuotaRow,
  type AgentTokenUsageRow,
  agentQuotas,
} from "@/db/schema";
import type { Period } from "./counters";
import { periodsAt } from "./periods";
import type { QuotaLimitField } from "./schema";

/**
 * Token counters and budgets. A reply's tokens are known only once it ends, so the statement that
 * stores it adds them. A budget is checked when a chat or run starts: the tokens used, the tokens
 * held by chats and runs in flight (`token_holds`) and the new start's own hold must fit in the
 * limit, so however many start at the boundary, no more start than the budget can hold. A chat
 * holds the estimate of its input (server/chat's opening), a run one token. Usage lives in
 * `agent_token_usage`, apart from the quota row a reserve takes (db/schema.ts).
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

export const periodOf = <T>(budget: TokenBudget, day: T, month: T): T =>
  budget.periodColumn === "tokenDay" ? day : month;

/** The WHERE term of a reserve: every budget has room for a start holding `hold` tokens. */
export function withinTokenBudgets(day: unknown, month: unknown, hold: SQL): SQL {
  const q = agentQuotas;
  return sql`((${q.tokenLimitTotal} IS NULL AND ${q.tokenLimitMonthly} IS NULL AND ${q.tokenLimitDaily} IS NULL)
    OR agent_token_budgets_have_room(${q.aid}, ${q.tokenHolds}, ${hold}, ${q.tokenLimitTotal},
      ${q.tokenLimitMonthly}, ${q.tokenLimitDaily}, ${day}::date, ${month}::date))`;
}

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

/** The whole quota from the quota row and token counters, for a statement that just wrote it. */
export function withTokenUsage(
  counts: AgentQuotaCountsRow,
  usage: AgentTokenUsageRow | null,
): AgentQuotaRow {
  const { holdsSettled, aid: _aid, ...tokens } = usage ?? NO_TOKEN_USAGE;
  return { ...counts, ...tokens, tokenHolds: counts.tokenHolds - holdsSettled };
}

const NO_TOKEN_USAGE: AgentTokenUsageRow = {
  aid: "",
  inputTokensTotal: 0,
  outputTokensTotal: 0,
  inputTokensMonthly: 0,
  outputTokensMonthly: 0,
  tokenMonth: null,
  inputTokensDaily: 0,
  outputTokensDaily: 0,
  tokenDay: null,
  costTotal: 0,
  costMonthly: 0,
  costDaily: 0,
  holdsSettled: 0,
};
