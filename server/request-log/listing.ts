import { and, asc, desc, eq, gte, lt, type SQL, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { agentKeys, requestLog } from "@/db/schema";
import { instant } from "@/server/kit/bounds";
import { decodeCursor, encodeCursor, twoWayPage } from "@/server/pagination";
import { callerLabel } from "@/server/threads";
import { withCustomPlans } from "./custom-plans";
import { requestLogOf } from "./recorder";
import type { listRequestsInputSchema, listRequestsOutputSchema } from "./schema";
import { FAILED_STATUSES } from "./view";

type Input = z.output<typeof listRequestsInputSchema>;
type Output = z.output<typeof listRequestsOutputSchema>;

/** Older than the row started at `at` with id `id`, or newer (`d: "b"`); bounded as any instant. */
const requestCursor = z.object({
  at: instant(),
  id: z.int().positive(),
  d: z.literal("b").optional(),
});

export async function listRequests({ db }: { db: Db }, input: Input): Promise<Output> {
  // This process's own rows first, so that what it answered a moment ago is listed (other
  // processes' rows follow within a second).
  await requestLogOf(db).flush();
  const cursor = input.cursor ? decodeCursor(input.cursor, requestCursor) : undefined;
  const backwards = cursor?.d === "b";
  const fetched = await withCustomPlans(db, (planned) => requestsPage(planned, input, cursor));
  const { page, ...cursors } = twoWayPage(
    fetched,
    input.limit,
    { backwards, fromCursor: cursor !== undefined },
    (row, before) =>
      encodeCursor({
        at: row.entry.startedAt.toISOString(),
        id: row.entry.id,
        ...(before ? { d: "b" } : {}),
      }),
  );
  return {
    requests: page.map(({ entry, keyName }) => ({
      id: entry.id,
      started_at: entry.startedAt.toISOString(),
      via: entry.via,
      aid: entry.aid,
      caller: entry.caller,
      caller_label: callerLabel(entry.caller, keyName),
      chat_id: entry.chatId,
      status: entry.status,
      code: entry.code,
      latency_ms: entry.latencyMs,
      model: entry.model,
      endpoint: entry.endpoint,
      input_tokens: entry.inputTokens,
      output_tokens: entry.outputTokens,
      cost: entry.cost,
      request_id: entry.requestId,
      stands_for: entry.standsFor,
    })),
    ...cursors,
  };
}

/** One page's statement: its filters, after the cursor, in the cursor's direction. */
export function requestsPage(
  db: Db,
  input: Input,
  cursor: z.output<typeof requestCursor> | undefined,
) {
  const t = requestLog;
  const backwards = cursor?.d === "b";
  const position = cursor
    ? sql`(${t.startedAt}, ${t.id}) ${sql.raw(backwards ? ">" : "<")} (${cursor.at}::timestamptz, ${cursor.id})`
    : undefined;
  const order = backwards ? [asc(t.startedAt), asc(t.id)] : [desc(t.startedAt), desc(t.id)];
  return db
    .select({ entry: t, keyName: agentKeys.name })
    .from(t)
    .leftJoin(
      agentKeys,
      and(sql`${t.caller} LIKE 'key:%'`, eq(agentKeys.id, sql`substr(${t.caller}, 5)`)),
    )
    .where(and(...filters(input), position))
    .orderBy(...order)
    .limit(input.limit + 1);
}

function filters(input: Input): (SQL | undefined)[] {
  const t = requestLog;
  return [
    input.aid === undefined ? undefined : eq(t.aid, input.aid),
    input.caller === undefined ? undefined : eq(t.caller, input.caller),
    input.status === undefined
      ? undefined
      : input.status === FAILED_STATUSES
        ? // A literal, not a parameter, so that the partial indexes match whatever plan is made.
          sql`${t.status} <> 200`
        : eq(t.status, input.status),
    input.from === undefined ? undefined : gte(t.startedAt, input.from),
    input.to === undefined ? undefined : lt(t.startedAt, input.to),
  ];
}

/** Entries one purge statement deletes at most, so that no statement holds locks for long. */
const PURGE_BATCH = 1000;

/**
 * Deletes entries older than `days` (all when 0: the log is off), oldest first, a batch a
 * statement until none is left, however many. Each batch starts where the last ended, so it does
 * not walk again the index entries of rows just deleted; rows another purge holds are skipped.
 * Then the sums and counters nothing counts any more.
 */
export async function purgeOldRequests(db: Db, now: Date, days: number): Promise<number> {
  const cutoff = new Date(now.getTime() - days * 86_400_000).toISOString();
  let purged = 0;
  let after: string | null = null;
  for (;;) {
    const [gone]: { n: number; last: string | null }[] = rowsOf(
      await db.execute(sql`WITH gone AS (
          DELETE FROM request_log WHERE ctid = ANY (ARRAY(
            SELECT ctid FROM request_log
            WHERE started_at < ${cutoff}::timestamptz
              AND started_at >= coalesce(${after}::timestamptz, '-infinity')
            ORDER BY started_at LIMIT ${PURGE_BATCH} FOR UPDATE SKIP LOCKED))
          RETURNING started_at)
        SELECT count(*)::int AS n, max(started_at)::text AS last FROM gone`),
    );
    purged += gone?.n ?? 0;
    if (!gone?.last || gone.n < PURGE_BATCH) break;
    after = gone.last;
  }
  for (const sums of ["request_log_hours", "request_log_days"])
    await db.execute(sql`DELETE FROM ${sql.identifier(sums)}
      WHERE requests = 0 AND starts_at < ${cutoff}::timestamptz`);
  // A client's count matters for the hour it counts; the hour before is kept for late batches.
  await db.execute(sql`DELETE FROM request_log_missing_agent
    WHERE hour < ${new Date(now.getTime() - 2 * 3_600_000).toISOString()}::timestamptz`);
  return purged;
}
