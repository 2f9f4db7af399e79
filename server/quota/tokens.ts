import { and, isNull, lt, or, type SQL, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { type AgentQuotaRow, agentQuotas, modelPrices, usageHourly } from "@/db/schema";
import { periodsAt, utcHour } from "./periods";
import type { QuotaLimitField } from "./schema";

/**
 * Token counters and budgets. A reply's tokens are known only once it ends, so they are added
 * by the statement that stores it (with its cost and its hour of usage), never guessed ahead. A
 * budget is checked when a chat or run starts: it may start while the tokens used, plus one for
 * each chat or run still in flight (`token_holds`), are under the limit. So a reply that crosses
 * the limit is delivered and counted, the next start is refused, and however many start at once
 * at the boundary, no more start than there are tokens left.
 */

type Period = "total" | "monthly" | "daily";

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

const periodOf = <T>(budget: TokenBudget, day: T, month: T): T =>
  budget.periodColumn === "tokenDay" ? day : month;

/** `column` as of `day`/`month`: itself in the stored period, else 0. */
function inPeriod(budget: TokenBudget, column: unknown, day: unknown, month: unknown): SQL {
  if (!budget.periodColumn) return sql`${column}`;
  const stored = agentQuotas[budget.periodColumn];
  return sql`(CASE WHEN ${stored} = ${periodOf(budget, day, month)} THEN ${column} ELSE 0 END)`;
}

/** The WHERE terms of a consume: every budget has room for one more start. */
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

/**
 * A reply's usage, for `accountUsage` and `priceClause`: each field a value or a placeholder
 * (the store statement is prepared once, with placeholders). `kind` shapes the statement.
 */
export type Accounted = {
  aid: unknown;
  /** A chat's reply counts as a message of the hour, an autonomous run's as a run. */
  kind: "message" | "run";
  model: unknown;
  inputTokens: unknown;
  outputTokens: unknown;
  /** Where the reply counts: the UTC day and month of when it was stored, and its hour. */
  day: unknown;
  month: unknown;
  hour: unknown;
};

/** The day, month and hour (ISO) where a reply stored at `at` counts, for `Accounted`. */
export function accountedPeriods(at: Date): { day: string; month: string; hour: string } {
  const { day, month } = periodsAt(at);
  return { day, month, hour: utcHour(at) };
}

/** The price of a reply as a WITH clause named `price` (no row when its model has no price). */
export function priceClause({ model, inputTokens, outputTokens }: Accounted): SQL {
  return sql`SELECT ${modelPrices.inputPerMillion} * ${inputTokens}::numeric / 1000000
      + ${modelPrices.outputPerMillion} * ${outputTokens}::numeric / 1000000 AS cost
    FROM ${modelPrices} WHERE ${modelPrices.model} = ${model}::text`;
}

/**
 * The WITH clauses that count a stored reply, to run in the statement that stores it and only
 * if its guard (a WITH clause named `guard`) returned a row: its tokens and cost added to the
 * agent's counters (started again in a new day or month), its hold released, and its hour of
 * usage counted up. Needs the `price` clause beside it.
 */
export function accountUsage(db: Db, accounted: Accounted): SQL[] {
  const { aid, kind, inputTokens, outputTokens, day, month, hour } = accounted;
  const cost = sql`coalesce((SELECT cost FROM price), 0)`;
  const q = agentQuotas;
  const set: Record<string, SQL> = { tokenHolds: sql`GREATEST(${q.tokenHolds} - 1, 0)` };
  for (const budget of TOKEN_BUDGETS) {
    set[budget.input] =
      sql`${inPeriod(budget, q[budget.input], day, month)} + ${inputTokens}::bigint`;
    set[budget.output] =
      sql`${inPeriod(budget, q[budget.output], day, month)} + ${outputTokens}::bigint`;
    set[budget.cost] = sql`${inPeriod(budget, q[budget.cost], day, month)} + ${cost}`;
    if (budget.periodColumn) set[budget.periodColumn] = sql`${periodOf(budget, day, month)}::date`;
  }
  const u = usageHourly;
  return [
    db
      .update(q)
      .set(set)
      .where(and(sql`${q.aid} = ${aid}::text`, sql`EXISTS (SELECT 1 FROM guard)`))
      // Returned so that the store can read it, which orders its row locks (store.ts).
      .returning({ aid: q.aid })
      .getSQL(),
    sql`INSERT INTO ${u} AS u (aid, hour, messages, runs, input_tokens, output_tokens, cost, unpriced)
      SELECT ${aid}::text, ${hour}::timestamptz, ${kind === "message" ? 1 : 0}, ${kind === "run" ? 1 : 0},
        ${inputTokens}::bigint, ${outputTokens}::bigint, ${cost},
        CASE WHEN EXISTS (SELECT 1 FROM price) THEN 0 ELSE 1 END
      WHERE EXISTS (SELECT 1 FROM guard)
      ON CONFLICT (aid, hour) DO UPDATE SET messages = u.messages + EXCLUDED.messages,
        runs = u.runs + EXCLUDED.runs, input_tokens = u.input_tokens + EXCLUDED.input_tokens,
        output_tokens = u.output_tokens + EXCLUDED.output_tokens, cost = u.cost + EXCLUDED.cost,
        unpriced = u.unpriced + EXCLUDED.unpriced`,
  ];
}
