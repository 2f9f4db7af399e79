import { type SQL, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import type { WebhookEventType } from "@/db/enums";
import { rowsOf } from "@/db/rows";
import { EVENT_BODY_MAX_BYTES, TRIMMED_MEMBER_MAX_BYTES } from "./view";

/**
 * The outbox: an event becomes one delivery row per enabled endpoint subscribed to its type,
 * written by the statement or transaction that makes the event, so it commits with the change
 * or not at all. The senders (sender.ts) deliver the rows later, from any instance.
 */

/** A new `webhook-id`: `msg_` and 32 hex digits, random, the same on every attempt. */
export const NEW_WEBHOOK_ID = sql`'msg_' || replace(gen_random_uuid()::text, '-', '')`;

/**
 * An event's body as SQL text, stored and sent as is, so every attempt signs the same bytes. A
 * body over EVENT_BODY_MAX_BYTES is written trimmed rather than refused: the change it reports is
 * made either way, and the receiver still learns of it. Its data keeps only its small members (ids,
 * statuses, times), and `truncated` and `omitted` say what to read through the API instead.
 */
export function eventBodySql(type: SQL | string, timestamp: SQL | string, data: SQL): SQL {
  const members = sql`json_each(CASE json_typeof(event.data) WHEN 'object' THEN event.data
    ELSE '{}'::json END) m`;
  const small = sql`octet_length(m.value::text) <= ${sql.raw(String(TRIMMED_MEMBER_MAX_BYTES))}`;
  return sql`(SELECT CASE WHEN octet_length(whole.body) <= ${sql.raw(String(EVENT_BODY_MAX_BYTES))}
      THEN whole.body
      ELSE json_build_object('type', event.type, 'timestamp', event.ts,
        'data', (SELECT coalesce(json_object_agg(m.key, m.value), '{}'::json)
          FROM ${members} WHERE ${small}),
        'truncated', true,
        'omitted', (SELECT coalesce(json_agg(m.key), '[]'::json) FROM ${members} WHERE NOT ${small})
      )::text END
    FROM (SELECT ${type}::text AS type, ${timestamp}::text AS ts, ${data} AS data) event,
      LATERAL (SELECT json_build_object('type', event.type, 'timestamp', event.ts,
        'data', event.data)::text AS body) whole)`;
}

/** The INSERT that fans one event out to every subscribed endpoint, in the maker's statement. */
export function fanOutSql({
  type,
  at,
  data,
  from,
  where,
}: {
  type: WebhookEventType;
  at: unknown;
  data: SQL;
  from?: SQL;
  where?: SQL;
}): SQL {
  const timestamp = sql`to_char(${at}::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  return sql`INSERT INTO webhook_deliveries
      (endpoint_id, webhook_id, event_type, body, next_attempt_at, created_at)
    SELECT e.id, ${NEW_WEBHOOK_ID}, ${type}::text, ${eventBodySql(type, timestamp, data)},
      ${at}::timestamptz, ${at}::timestamptz
    FROM webhook_endpoints e${from ? sql`, ${from}` : sql``}
    WHERE e.enabled AND ${type}::text = ANY(e.events)${where ? sql` AND (${where})` : sql``}`;
}

/** Whether an enabled endpoint subscribes to `type` (in the caller's transaction). */
export async function subscribed(db: Db, type: WebhookEventType): Promise<boolean> {
  const [row] = rowsOf<{ any: boolean }>(
    await db.execute(sql`SELECT EXISTS (SELECT 1 FROM webhook_endpoints
      WHERE enabled AND ${type}::text = ANY(events)) AS any`),
  );
  return row?.any === true;
}

/** Fans out one event in the caller's transaction; a function `data` is made only if needed. */
export async function emitEvent(
  db: Db,
  event: {
    type: WebhookEventType;
    at: Date;
    data: unknown | (() => Promise<unknown>);
  },
): Promise<void> {
  let data = event.data;
  if (typeof data === "function") {
    if (!(await subscribed(db, event.type))) return;
    data = await (data as () => Promise<unknown>)();
  }
  await db.execute(
    fanOutSql({
      type: event.type,
      at: event.at.toISOString(),
      data: sql`${JSON.stringify(data)}::json`,
    }),
  );
}
