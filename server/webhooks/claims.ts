import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import type { StoredWebhookAttempt } from "@/db/schema";

/**
 * The senders' two statements. A claim takes due deliveries with FOR UPDATE SKIP LOCKED, counts
 * the attempt and moves `next_attempt_at` ahead by a lease: if the sender dies, the delivery is
 * due again when the lease ends (at least once). An attempt's record applies only to its own
 * claim (its attempt number), so a sender whose lease ran out cannot overwrite what came after.
 * A claim takes no more of an endpoint's deliveries than its bound on attempts in flight leaves,
 * counting every sender's leases, so an endpoint that hangs holds no more than its bound.
 */

export type ClaimedDelivery = {
  id: number;
  endpointId: string;
  webhookId: string;
  body: string;
  attempt: number;
  createdAt: Date;
  giveUpAt: Date | null;
  url: string;
  sealedSecret: string;
};

type ClaimRow = {
  /** Null on the one row of a claim that took nothing. */
  id: number | string | null;
  endpoint_id: string;
  webhook_id: string;
  body: string;
  attempt_count: number;
  created_at: Date | string;
  give_up_at: Date | string | null;
  url: string;
  secret: string;
};

/** An attempt claimed and not yet recorded (its number is past the log's last), lease unexpired. */
const inFlight = (now: string, leaseEnd: string) => sql`
  d.status = 'pending' AND d.next_attempt_at > ${now}::timestamptz
    AND d.next_attempt_at <= ${leaseEnd}::timestamptz
    AND d.attempt_count > coalesce((d.attempts -> -1 ->> 'attempt')::int, 0)`;

/**
 * Claims up to `limit` due deliveries, at most `perEndpoint` in flight to an endpoint; `held`:
 * more were due than it took. Each endpoint's first due deliveries are chosen on the statement's
 * snapshot and only then locked: senders claiming at once choose the same ones and share them
 * through SKIP LOCKED, so together they take no more of an endpoint than one would (but for a
 * delivery that comes due between their snapshots ahead of others, which may let one more by).
 */
export async function claimDue(
  db: Db,
  {
    now,
    limit,
    leaseMs,
    perEndpoint,
  }: { now: Date; limit: number; leaseMs: number; perEndpoint: number },
): Promise<{ claimed: ClaimedDelivery[]; held: boolean }> {
  const at = now.toISOString();
  const leaseEnd = new Date(now.getTime() + leaseMs).toISOString();
  const rows = rowsOf<ClaimRow & { held: boolean }>(
    await db.execute(sql`
      WITH room AS (
        SELECT e.id, ${perEndpoint}::int - (SELECT count(*)::int FROM webhook_deliveries d
          WHERE d.endpoint_id = e.id AND ${inFlight(at, leaseEnd)}) AS n
        FROM webhook_endpoints e WHERE e.enabled),
      due AS (
        SELECT first.* FROM room CROSS JOIN LATERAL (
          SELECT d.id, d.next_attempt_at,
            row_number() OVER (ORDER BY d.next_attempt_at, d.id) <= room.n AS fits
          FROM webhook_deliveries d
          WHERE d.endpoint_id = room.id AND d.status = 'pending'
            AND d.next_attempt_at <= ${at}::timestamptz
          ORDER BY d.next_attempt_at, d.id
          LIMIT ${perEndpoint + 1}) AS first),
      chosen AS (
        SELECT id FROM due WHERE fits ORDER BY next_attempt_at, id LIMIT ${limit}),
      taken AS (
        SELECT d.id FROM webhook_deliveries d JOIN chosen ON chosen.id = d.id
        WHERE d.status = 'pending' AND d.next_attempt_at <= ${at}::timestamptz
        FOR UPDATE OF d SKIP LOCKED),
      claimed AS (
        UPDATE webhook_deliveries d
        SET next_attempt_at = ${leaseEnd}::timestamptz, attempt_count = d.attempt_count + 1
        FROM taken, webhook_endpoints e
        WHERE d.id = taken.id AND e.id = d.endpoint_id
        RETURNING d.id, d.endpoint_id, d.webhook_id, d.body, d.attempt_count, d.created_at,
          d.give_up_at, e.url, e.secret)
      SELECT claimed.*, (SELECT count(*) FROM due) > (SELECT count(*) FROM claimed) AS held
      FROM (VALUES (1)) AS one LEFT JOIN claimed ON true`),
  );
  const claimed = rows.flatMap((row) =>
    row.id === null
      ? []
      : [
          {
            id: Number(row.id),
            endpointId: row.endpoint_id,
            webhookId: row.webhook_id,
            body: row.body,
            attempt: row.attempt_count,
            createdAt: new Date(row.created_at),
            giveUpAt: row.give_up_at === null ? null : new Date(row.give_up_at),
            url: row.url,
            sealedSecret: row.secret,
          },
        ],
  );
  return { claimed, held: rows[0]?.held ?? false };
}

/** What became of an attempt: delivered, to be tried again at a time, or given up. */
export type Settled =
  | { status: "delivered" }
  | { status: "pending"; retryAt: Date }
  | { status: "failed" };

/** The attempts a delivery's log keeps, the latest. */
const KEPT_ATTEMPTS = 20;

/**
 * Records the attempt, the delivery's state and log, and its endpoint's health in one statement;
 * says whether the claim was still this sender's, and whether the endpoint was disabled now.
 */
export async function recordAttempt(
  db: Db,
  delivery: Pick<ClaimedDelivery, "id" | "attempt">,
  {
    attempt,
    settled,
    now,
    windowStart,
    failingFrom,
    disableReason,
  }: {
    attempt: StoredWebhookAttempt;
    settled: Settled;
    now: Date;
    windowStart: Date;
    /** When this delivery's retry window began (its event, or a retry asked for). */
    failingFrom: Date;
    disableReason: string;
  },
): Promise<{ recorded: boolean; disabled: boolean }> {
  const at = now.toISOString();
  const delivered = settled.status === "delivered";
  const next = settled.status === "pending" ? settled.retryAt.toISOString() : at;
  // An endpoint fails from the event its failing delivery was for, not from its first attempt.
  const since = sql`coalesce(e.failing_since, ${failingFrom.toISOString()}::timestamptz)`;
  const failing = sql`${since} <= ${windowStart.toISOString()}::timestamptz`;
  const rows = rowsOf<{ recorded: number; disabled: number }>(
    await db.execute(sql`
      WITH done AS (
        UPDATE webhook_deliveries SET
          status = ${settled.status}::text,
          next_attempt_at = ${next}::timestamptz,
          finished_at = ${settled.status === "pending" ? null : at}::timestamptz,
          attempts = (CASE WHEN jsonb_array_length(attempts) >= ${KEPT_ATTEMPTS}
            THEN attempts - 0 ELSE attempts END) || jsonb_build_array(${JSON.stringify(attempt)}::jsonb)
        WHERE id = ${delivery.id} AND attempt_count = ${delivery.attempt} AND status = 'pending'
        RETURNING endpoint_id),
      health AS (
        UPDATE webhook_endpoints e SET
          failing_since = CASE WHEN ${delivered}::boolean THEN NULL ELSE ${since} END,
          enabled = CASE WHEN NOT ${delivered}::boolean AND ${failing} THEN false ELSE e.enabled END,
          disabled_reason = CASE WHEN NOT ${delivered}::boolean AND ${failing} THEN ${disableReason}::text
            ELSE e.disabled_reason END,
          updated_at = CASE WHEN NOT ${delivered}::boolean AND ${failing} THEN ${at}::timestamptz
            ELSE e.updated_at END
        FROM done
        WHERE e.id = done.endpoint_id AND CASE WHEN ${delivered}::boolean THEN e.failing_since IS NOT NULL
          ELSE e.failing_since IS NULL OR (e.enabled AND ${failing}) END
        RETURNING e.enabled)
      SELECT (SELECT count(*)::int FROM done) AS recorded,
        (SELECT count(*)::int FROM health WHERE NOT enabled) AS disabled`),
  );
  const [row] = rows;
  return { recorded: (row?.recorded ?? 0) > 0, disabled: (row?.disabled ?? 0) > 0 };
}
