import { type SQL, sql } from "drizzle-orm";
import { toSnakeCase } from "drizzle-orm/casing";
import { agentTokenUsage, chatReservations, modelPrices, usageHourly } from "@/db/schema";
import { agentsLockedShared } from "@/server/kit/agent-lock";
import { periodsAt, utcHour } from "./periods";
import { periodOf, TOKEN_BUDGETS } from "./tokens";

/**
 * Settle: a delivered reply ends its use in the statement that stores it (server/threads), which
 * may store several. Its tokens and cost go to `agent_token_usage`, never the quota row, and only
 * if the guard still held the use, so a use is never both given back and delivered.
 */

/**
 * How a store statement settles: `kind` shapes it (a chat's reply counts as a message of the
 * hour, an autonomous run's as a run); `day`, `month` and `hour` (values or placeholders) are the
 * periods every exchange of the statement counts in.
 */
export type Accounted = {
  kind: "message" | "run";
  day: unknown;
  month: unknown;
  hour: unknown;
};

export function accountedPeriods(at: Date): { day: string; month: string; hour: string } {
  const { day, month } = periodsAt(at);
  return { day, month, hour: utcHour(at) };
}

/**
 * The guard that deletes each exchange's chat reservation (its `guard_id`): a row only while the
 * use is still held, with the tokens it held (`held_tokens`, which settleUsage ends). `id` is
 * the reservation of the exchange it guards.
 */
export function settleMessage(id: number): { key: string; build: () => SQL; id: number } {
  return {
    key: "reservation",
    // The agents' locks first (server/kit/agent-lock.ts): a one-time filter, before any row. The
    // ids as an array, so that the reservations are found by their key however many there are.
    build: () =>
      sql`DELETE FROM ${chatReservations}
          WHERE ${chatReservations.id} = ANY (ARRAY(SELECT guard_id FROM exchanges))
            AND ${agentsLockedShared(sql`SELECT aid FROM exchanges`)}
          RETURNING ${chatReservations.id} AS guard_id, ${chatReservations.heldTokens}`,
    id,
  };
}

/** What a reply of `model` costs (null if its model has no price), its tokens as given. */
export function priceOf(model: SQL, inputTokens: SQL, outputTokens: SQL): SQL {
  const m = modelPrices;
  return sql`(SELECT ${m.inputPerMillion} * ${inputTokens}::numeric / 1000000
    + ${m.outputPerMillion} * ${outputTokens}::numeric / 1000000
    FROM ${m} WHERE ${m.model} = ${model})`;
}

/**
 * The WITH clauses that count stored replies, over the statement's `exchanges` (server/threads)
 * and its `guard`: `settled` (the exchanges the guard kept, each with its hold and its `cost`,
 * null if its model has no price), `tokens` (added to `agent_token_usage`, their holds ended) and
 * `usage` (their hour counted up), each agent's row written once, in the agents' order, so that
 * concurrent stores take them in one order.
 */
export function settleUsage(accounted: Accounted): { settled: SQL; tokens: SQL; usage: SQL } {
  const { kind, day, month, hour } = accounted;
  const t = agentTokenUsage;
  // The columns by their names in the database (the schema's keys are camelCase), as an
  // INSERT's column list and ON CONFLICT's SET need them.
  const column = (key: string) => sql`${sql.identifier(toSnakeCase(key))}`;
  // The hold ends: a chat's as its reservation recorded it (settleMessage), a run's one token.
  const held = kind === "message" ? sql`g.held_tokens` : sql`1`;
  const cost = sql`coalesce(s.cost, 0)`;
  const inserted: SQL[] = [sql`s.aid`, sql`sum(s.held_tokens)::bigint`];
  const columns: SQL[] = [column("aid"), column("holdsSettled")];
  const updates: SQL[] = [
    sql`${column("holdsSettled")} = t.holds_settled + EXCLUDED.${column("holdsSettled")}`,
  ];
  for (const budget of TOKEN_BUDGETS) {
    for (const [name, added] of [
      [budget.input, sql`sum(s.input_tokens)::bigint`],
      [budget.output, sql`sum(s.output_tokens)::bigint`],
      [budget.cost, sql`sum(${cost})`],
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
    settled: sql`SELECT e.*, ${held} AS held_tokens,
        ${priceOf(sql`e.model`, sql`e.input_tokens`, sql`e.output_tokens`)} AS cost
      FROM exchanges AS e JOIN guard AS g ON g.guard_id = e.guard_id`,
    tokens: sql`INSERT INTO ${t} AS t (${sql.join(columns, sql`, `)})
      SELECT ${sql.join(inserted, sql`, `)} FROM settled AS s GROUP BY s.aid ORDER BY s.aid
      ON CONFLICT (aid) DO UPDATE SET ${sql.join(updates, sql`, `)}
      RETURNING aid`,
    usage: sql`INSERT INTO ${u} AS u (aid, hour, messages, runs, input_tokens, output_tokens, cost, unpriced)
      SELECT s.aid, ${hour}::timestamptz, ${kind === "message" ? sql`count(*)` : sql`0`},
        ${kind === "run" ? sql`count(*)` : sql`0`}, sum(s.input_tokens)::bigint,
        sum(s.output_tokens)::bigint, sum(${cost}), count(*) FILTER (WHERE s.cost IS NULL)
      FROM settled AS s GROUP BY s.aid ORDER BY s.aid
      ON CONFLICT (aid, hour) DO UPDATE SET messages = u.messages + EXCLUDED.messages,
        runs = u.runs + EXCLUDED.runs, input_tokens = u.input_tokens + EXCLUDED.input_tokens,
        output_tokens = u.output_tokens + EXCLUDED.output_tokens, cost = u.cost + EXCLUDED.cost,
        unpriced = u.unpriced + EXCLUDED.unpriced`,
  };
}
