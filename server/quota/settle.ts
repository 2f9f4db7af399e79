import { type SQL, sql } from "drizzle-orm";
import { toSnakeCase } from "drizzle-orm/casing";
import { agentTokenUsage, chatReservations, modelPrices, usageHourly } from "@/db/schema";
import { agentLockShared } from "@/server/kit/agent-lock";
import { periodsAt, utcHour } from "./periods";
import { periodOf, TOKEN_BUDGETS } from "./tokens";

/**
 * Settle: a delivered reply ends its use in the statement that stores it (server/threads). Its
 * tokens and cost go to `agent_token_usage`, never the quota row, and only if the guard still held
 * the use, so a use is never both given back and delivered.
 */

/** A reply's usage, each field a value or a placeholder; `kind` shapes the statement. */
export type Accounted = {
  aid: unknown;
  /** A chat's reply counts as a message of the hour, an autonomous run's as a run. */
  kind: "message" | "run";
  model: unknown;
  inputTokens: unknown;
  outputTokens: unknown;
  day: unknown;
  month: unknown;
  hour: unknown;
};

export function accountedPeriods(at: Date): { day: string; month: string; hour: string } {
  const { day, month } = periodsAt(at);
  return { day, month, hour: utcHour(at) };
}

/**
 * The guard that deletes the chat's reservation `id`: a row only while the use is still held,
 * with the tokens it held (`held_tokens`, which settleUsage ends for a message).
 */
export function settleMessage(id: number): {
  key: string;
  build: () => SQL;
  values: Record<string, unknown>;
} {
  return {
    key: "reservation",
    // The agent's lock first (server/kit/agent-lock.ts): a one-time filter, before the row.
    build: () =>
      sql`DELETE FROM ${chatReservations}
          WHERE ${chatReservations.id} = ${sql.placeholder("guardReservationId")}::bigint
            AND (SELECT ${agentLockShared(sql.placeholder("aid"))}) IS NOT NULL
          RETURNING id, held_tokens`,
    values: { guardReservationId: id },
  };
}

/**
 * The WITH clauses that count a stored reply beside its guard: `price` (the store reads it too),
 * `tokens` (added to `agent_token_usage`, its hold ended) and `usage` (its hour counted up).
 * Each writes only if the guard returned a row.
 */
export function settleUsage(accounted: Accounted): { price: SQL; tokens: SQL; usage: SQL } {
  const { aid, kind, model, inputTokens, outputTokens, day, month, hour } = accounted;
  const cost = sql`coalesce((SELECT cost FROM price), 0)`;
  const t = agentTokenUsage;
  // The columns by their names in the database (the schema's keys are camelCase), as an
  // INSERT's column list and ON CONFLICT's SET need them.
  const column = (key: string) => sql`${sql.identifier(toSnakeCase(key))}`;
  // The hold ends: a chat's as its reservation recorded it (settleMessage), a run's one token.
  const held = kind === "message" ? sql`(SELECT held_tokens FROM guard)` : sql`1`;
  const inserted: SQL[] = [sql`${aid}::text`, held];
  const columns: SQL[] = [column("aid"), column("holdsSettled")];
  const updates: SQL[] = [
    sql`${column("holdsSettled")} = t.holds_settled + EXCLUDED.${column("holdsSettled")}`,
  ];
  for (const budget of TOKEN_BUDGETS) {
    for (const [name, added] of [
      [budget.input, sql`${inputTokens}::bigint`],
      [budget.output, sql`${outputTokens}::bigint`],
      [budget.cost, cost],
    ] as const) {
      columns.push(column(name));
      inserted.push(added);
      // A daily or monthly count of an earlier period starts again from 0.
      const kept = budget.periodColumn
        ? sql`CASE WHEN t.${column(budget.periodColumn)} = ${periodOf(budget, day, month)}::date THEN t.${column(name)} ELSE 0 END`
        : sql`t.${column(name)}`;
      updates.push(sql`${column(name)} = ${kept} + EXCLUDED.${column(name)}`);
    }
    if (budget.periodColumn) {
      const name = budget.periodColumn;
      columns.push(column(name));
      inserted.push(sql`${periodOf(budget, day, month)}::date`);
      updates.push(sql`${column(name)} = EXCLUDED.${column(name)}`);
    }
  }
  const u = usageHourly;
  return {
    price: sql`SELECT ${modelPrices.inputPerMillion} * ${inputTokens}::numeric / 1000000
        + ${modelPrices.outputPerMillion} * ${outputTokens}::numeric / 1000000 AS cost
      FROM ${modelPrices} WHERE ${modelPrices.model} = ${model}::text`,
    tokens: sql`INSERT INTO ${t} AS t (${sql.join(columns, sql`, `)})
      SELECT ${sql.join(inserted, sql`, `)} WHERE EXISTS (SELECT 1 FROM guard)
      ON CONFLICT (aid) DO UPDATE SET ${sql.join(updates, sql`, `)}
      RETURNING aid`,
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
