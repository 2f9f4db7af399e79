import { type SQL, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import type { WebhookEventType } from "@/db/enums";
import { rowsOf } from "@/db/rows";

/**
 * The outbox: an event becomes one delivery row per enabled endpoint subscribed to its type,
 * written by the statement or transaction that makes the event, so it commits with the change
 * or not at all. The senders (sender.ts) deliver the rows later, from any instance.
 */

/** A new `webhook-id`: `msg_` and 32 hex digits, random, the same on every attempt. */
export const NEW_WEBHOOK_ID = sql`'msg_' || replace(gen_random_uuid()::text, '-', '')`;

/** An event's body as SQL text, stored and sent as is, so every attempt signs the same bytes. */
export function eventBodySql(type: SQL | string, timestamp: SQL | string, data: SQL): SQL {
  return sql`json_build_object('type', ${type}::text, 'timestamp', ${timestamp}::text,
    'data', ${data})::text`;
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
