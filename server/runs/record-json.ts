import { type SQL, sql } from "drizzle-orm";
import type { WebhookEventType } from "@/db/enums";
import { fanOutSql } from "@/server/outbox";

/**
 * A run's webhook events, their data the run as GET /agents/{aid}/runs shows it, made here in SQL
 * from its row so that the statement that stores a run's reply can write the event with nothing
 * read back. tests/integration/webhook-events.test.ts keeps the two alike.
 */

/** An instant as the API writes it (JavaScript's toISOString). */
const iso = (column: SQL) =>
  sql`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The run in the row `r` (an `autonomous_runs` row, or a RETURNING of one) as `json`. */
export function runJson(r: string): SQL {
  const c = (column: string) => sql.raw(`${r}.${column}`);
  return sql`json_build_object(
    'id', ${c("id")}, 'aid', ${c("aid")}, 'trigger', ${c("trigger")},
    'due_at', ${iso(c("due_at"))}, 'started_at', ${iso(c("started_at"))},
    'finished_at', ${iso(c("finished_at"))}, 'outcome', ${c("outcome")},
    'reply', ${c("reply")}, 'error', ${c("error")},
    'usage', CASE WHEN ${c("input_tokens")} IS NULL OR ${c("output_tokens")} IS NULL THEN NULL
      ELSE json_build_object('input_tokens', ${c("input_tokens")},
        'output_tokens', ${c("output_tokens")},
        'estimated', coalesce(${c("tokens_estimated")}, true),
        'cost', ${c("cost")}::float8) END,
    'tool_calls', coalesce(${c("tool_calls")}, '[]'::jsonb))`;
}

export function runEventsSql(type: WebhookEventType, ids: readonly number[], at: Date): SQL {
  return fanOutSql({
    type,
    at: at.toISOString(),
    data: runJson("r"),
    from: sql`autonomous_runs r`,
    where: sql`r.id IN (${sql.join(
      ids.map((id) => sql`${id}::bigint`),
      sql`, `,
    )})`,
  });
}
