import { and, type SQL, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { agentQuotas, chatReservations, modelPrices, usageHourly } from "@/db/schema";
import { periodsAt, utcHour } from "./periods";
import { inPeriod, periodOf, TOKEN_BUDGETS } from "./tokens";

/**
 * Settle: a delivered reply ends the use it held, in the statement that stores it (the exchange
 * store of server/threads). Its guard deletes the chat's reservation (`settleMessage`; a run's
 * guard marks the run succeeded), and the WITH clauses of `settleUsage` count the reply's tokens
 * and cost on the agent's quota, release its token hold and count its hour of usage, only if the
 * guard returned a row. The use itself stays counted. A reservation already deleted (released,
 * or swept) stores nothing, so a use is never both given back and delivered.
 */

/**
 * A reply's usage, for `settleUsage`: each field a value or a placeholder (the store statement
 * is prepared once, with placeholders). `kind` shapes the statement.
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

/**
 * The chat's reservation `id` deleted, as the guard of the statement that stores its reply: it
 * returns a row only while the use is still held (not released, not swept).
 */
export function settleMessage(id: number): {
  key: string;
  build: () => SQL;
  values: Record<string, unknown>;
} {
  return {
    key: "reservation",
    build: () =>
      sql`DELETE FROM ${chatReservations}
          WHERE ${chatReservations.id} = ${sql.placeholder("guardReservationId")}::bigint
          RETURNING id`,
    values: { guardReservationId: id },
  };
}

/**
 * The WITH clauses that count a stored reply, for the statement that stores it, beside its guard
 * (a WITH clause named `guard`): `price`, the reply's cost (no row when its model has no price;
 * the store reads it too, so it must be named so); `quota`, its tokens and cost added to the
 * agent's counters (started again in a new day or month) and its token hold released,
 * returning the agent's aid; `usage`, its hour of usage counted up. Each writes only if the
 * guard returned a row.
 */
export function settleUsage(db: Db, accounted: Accounted): { price: SQL; quota: SQL; usage: SQL } {
  const { aid, kind, model, inputTokens, outputTokens, day, month, hour } = accounted;
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
  return {
    price: sql`SELECT ${modelPrices.inputPerMillion} * ${inputTokens}::numeric / 1000000
        + ${modelPrices.outputPerMillion} * ${outputTokens}::numeric / 1000000 AS cost
      FROM ${modelPrices} WHERE ${modelPrices.model} = ${model}::text`,
    quota: db
      .update(q)
      .set(set)
      .where(and(sql`${q.aid} = ${aid}::text`, sql`EXISTS (SELECT 1 FROM guard)`))
      // Returned so that the store can read it, which orders its row locks (see the store).
      .returning({ aid: q.aid })
      .getSQL(),
    usage: sql`INSERT INTO ${u} AS u (aid, hour, messages, runs, input_tokens, output_tokens, cost, unpriced)
      SELECT ${aid}::text, ${hour}::timestamptz, ${kind === "message" ? 1 : 0}, ${kind === "run" ? 1 : 0},
        ${inputTokens}::bigint, ${outputTokens}::bigint, ${cost},
        CASE WHEN EXISTS (SELECT 1 FROM price) THEN 0 ELSE 1 END
      WHERE EXISTS (SELECT 1 FROM guard)
      ON CONFLICT (aid, hour) DO UPDATE SET messages = u.messages + EXCLUDED.messages,
        runs = u.runs + EXCLUDED.runs, input_tokens = u.input_tokens + EXCLUDED.input_tokens,
        output_tokens = u.output_tokens + EXCLUDED.output_tokens, cost = u.cost + EXCLUDED.cost,
        unpriced = u.unpriced + EXCLUDED.unpriced`,
  };
}
