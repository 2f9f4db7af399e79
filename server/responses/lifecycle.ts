import { and, eq, lt, type SQL, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { type ResponseStatus, responseEvents, responses } from "@/db/schema";

/**
 * A background response's life in the database, where every instance sees it: its row's status,
 * heartbeat and cancel flag, and its stream's events. Its instance writes them; any instance
 * reads them, and any may ask it to cancel.
 */

/** An answering instance silent this long has stopped: its responses failed (housekeeping). */
const HEARTBEAT_LAPSE_MS = 30_000;
/** How long the events of an ended response can still be streamed again. */
const EVENTS_KEPT_MS = 24 * 60 * 60 * 1000;

export type RecordedEvent = { seq: number; data: string };

/**
 * Writes events and the heartbeat in one statement (the events as one JSON parameter, however
 * many); answers whether a cancel was asked for.
 */
export async function recordEvents(
  db: Db,
  id: string,
  events: RecordedEvent[],
  now: Date,
): Promise<boolean> {
  const added =
    events.length === 0
      ? sql``
      : sql`WITH added AS (
          INSERT INTO ${responseEvents} (response_id, seq, data)
          SELECT ${id}, (e->>'seq')::int, e->>'data'
          FROM jsonb_array_elements(${JSON.stringify(events)}::jsonb) e
        ) `;
  const rows = rowsOf<{ cancel_requested_at: unknown }>(
    await db.execute(sql`${added}UPDATE ${responses} SET heartbeat_at = ${now.toISOString()}
      WHERE id = ${id} RETURNING cancel_requested_at`),
  );
  return rows[0]?.cancel_requested_at != null;
}

/** Ends a response still in progress (not one the sweep has already failed), with its reply. */
export async function endResponse(
  db: Db,
  id: string,
  {
    status,
    now,
    error,
    reply,
  }: {
    status: Exclude<ResponseStatus, "in_progress">;
    now: Date;
    error: { code: string; message: string } | null;
    reply: { text: string; usage: { input_tokens: number; output_tokens: number } } | undefined;
  },
): Promise<void> {
  await db
    .update(responses)
    .set({
      status,
      error,
      heartbeatAt: now,
      ...(reply
        ? {
            outputText: reply.text,
            inputTokens: reply.usage.input_tokens,
            outputTokens: reply.usage.output_tokens,
          }
        : {}),
    })
    .where(and(eq(responses.id, id), eq(responses.status, "in_progress")));
}

/**
 * Asks for the cancel of the response (by `whose` caller): true if it was in progress. The
 * instance answering it sees the flag with its next heartbeat.
 */
export async function askToCancel(
  db: Db,
  id: string,
  mine: SQL | undefined,
  now: Date,
): Promise<boolean> {
  const asked = await db
    .update(responses)
    .set({ cancelRequestedAt: now })
    .where(and(eq(responses.id, id), eq(responses.status, "in_progress"), mine))
    .returning({ id: responses.id });
  return asked.length > 0;
}

/**
 * The events after `after` (at most `limit`) and the response's status, read together: a status
 * that has ended means every event is among those written, since the last are written first.
 */
export async function eventsAfter(
  db: Db,
  id: string,
  after: number,
  limit: number,
): Promise<{ status: ResponseStatus | undefined; events: RecordedEvent[] }> {
  const rows = rowsOf<{ status: ResponseStatus; seq: number | null; data: string | null }>(
    await db.execute(sql`
      SELECT r.status, e.seq, e.data FROM ${responses} r
      LEFT JOIN LATERAL (
        SELECT seq, data FROM ${responseEvents}
        WHERE response_id = r.id AND seq > ${after} ORDER BY seq LIMIT ${limit}
      ) e ON true
      WHERE r.id = ${id}
      ORDER BY e.seq`),
  );
  return {
    status: rows[0]?.status,
    events: rows.flatMap((row) =>
      row.seq === null ? [] : [{ seq: Number(row.seq), data: row.data as string }],
    ),
  };
}

/** Fails the responses whose instance stopped answering them; returns their ids. */
export async function failStalledResponses(db: Db, now: Date): Promise<string[]> {
  const stalled = await db
    .update(responses)
    .set({
      status: "failed",
      error: {
        code: "server_error",
        message: "The instance answering this response stopped before it ended; ask again.",
      },
    })
    .where(
      and(
        eq(responses.status, "in_progress"),
        lt(responses.heartbeatAt, new Date(now.getTime() - HEARTBEAT_LAPSE_MS)),
      ),
    )
    .returning({ id: responses.id });
  return stalled.map((row) => row.id);
}

/** On the embedded database's start: every response in progress was its last process's. */
export async function failEveryResponseInProgress(db: Db, now: Date): Promise<number> {
  return (await failStalledResponses(db, new Date(now.getTime() + HEARTBEAT_LAPSE_MS))).length;
}

/**
 * Deletes the events of responses that ended more than EVENTS_KEPT_MS ago, found by the index of
 * those whose events are kept (a scan of every response would grow with them).
 */
export async function purgeOldResponseEvents(db: Db, now: Date): Promise<void> {
  const before = new Date(now.getTime() - EVENTS_KEPT_MS).toISOString();
  await db.execute(sql`
    WITH ended AS (
      UPDATE ${responses} SET events_kept = false
      WHERE events_kept AND status <> 'in_progress' AND heartbeat_at < ${before}
      RETURNING id
    )
    DELETE FROM ${responseEvents} WHERE response_id IN (SELECT id FROM ended)`);
}
