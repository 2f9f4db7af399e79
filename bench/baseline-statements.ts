import { Column, fillPlaceholders, is, SQL } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import type postgres from "postgres";
import { openingQuery, openingValues } from "@/server/chat";
import { settleMessage } from "@/server/quota";
import { type Exchange, storeQuery, storeValues } from "@/server/threads";
import type { Db } from "../db/client";
import * as schema from "../db/schema";

/**
 * The chat's two statements as the baseline makes them: the service's own texts, taken once
 * from the builders the service prepares them from (server/chat's `openingQuery`,
 * server/threads' `storeQuery`), their values from the same functions the service fills them
 * with, sent by postgres.js as prepared statements and read as plain arrays. So the baseline's
 * database work is the service's, whatever the statements come to do, and a ratio to it
 * measures the layers, not features that hand-written statements would leave out. What it
 * leaves out is every layer around them: drizzle's execution and row mapping, tRPC, zod, the
 * Web `Request`/`Response`, the logs and the metrics.
 */

type Query = {
  toSQL(): { sql: string; params: unknown[] };
  _: { selectedFields: Record<string, unknown> };
};

/** A statement: its text, its parameters (placeholders among them), where each field is. */
type Statement = { text: string; params: unknown[]; at: Map<string, number> };

/** A row as postgres.js returns it in array mode, read by the fields' dotted paths. */
export type StatementRow = { get(path: string): unknown; object(prefix: string): object };

/** The history read, oldest first, as `historyJson` returns it: [role, content, tool calls]. */
export type HistoryRows = [string, string, unknown][];

/** The fields of a selection in the order drizzle selects them (its `orderSelectedFields`). */
function fieldPaths(fields: Record<string, unknown>, prefix = ""): string[] {
  return Object.entries(fields).flatMap(([name, field]) => {
    const path = prefix + name;
    return is(field, Column) || is(field, SQL) || is(field, SQL.Aliased)
      ? [path]
      : fieldPaths(field as Record<string, unknown>, `${path}.`);
  });
}

function statementOf(query: Query): Statement {
  const { sql: text, params } = query.toSQL();
  const at = new Map(fieldPaths(query._.selectedFields).map((path, index) => [path, index]));
  return { text, params, at };
}

export function chatStatements(sql: postgres.Sql) {
  // Only to build the texts: nothing is executed through drizzle.
  const db = drizzle(sql, { schema, casing: "snake_case" }) as unknown as Db;
  const opening = statementOf(openingQuery(db, "public", false));
  const store = statementOf(storeQuery(db, "message", settleMessage(0)));

  const run = async (statement: Statement, values: Record<string, unknown>) => {
    const rows = await sql
      .unsafe(statement.text, fillPlaceholders(statement.params, values) as never[], {
        prepare: true,
      })
      .values();
    const row = rows[0] as unknown[] | undefined;
    if (row === undefined) return undefined;
    if (row.length !== statement.at.size)
      throw new Error(`a row of ${row.length} fields, not the ${statement.at.size} selected`);
    return {
      get: (path: string) => row[statement.at.get(path) as number],
      object: (prefix: string) =>
        Object.fromEntries(
          [...statement.at]
            .filter(([path]) => path.startsWith(`${prefix}.`))
            .map(([path, index]) => [path.slice(prefix.length + 1), row[index]]),
        ),
    } satisfies StatementRow;
  };

  return {
    /** The opening statement for an anonymous caller: the row, or undefined (no agent). */
    open: (
      thread: { aid: string; addressHash: string; chatId: string },
      now: Date,
      historyMessages: number,
    ) =>
      run(
        opening,
        openingValues(
          [
            {
              aid: thread.aid,
              caller: { kind: "anonymous", addressHash: thread.addressHash },
              chatId: thread.chatId,
              // The question is not counted in the hold: the baseline's agents have no budgets.
              inputChars: 0,
            },
          ],
          now,
          { historyMessages, historyMaxChars: 24_000 },
        ),
      ),
    /** The store statement, guarded by the chat's reservation: whether it stored. */
    store: async (exchange: Exchange, reservationId: number): Promise<boolean> => {
      const row = await run(
        store,
        storeValues([{ exchange, guard: settleMessage(reservationId) }]),
      );
      return row !== undefined;
    },
  };
}
