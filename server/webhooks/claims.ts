import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import type { StoredWebhookAttempt } from "@/db/schema";

/**
 * The senders' two statements. A claim takes due deliveries with FOR UPDATE SKIP LOCKED, counts
 * the attempt and moves `next_attempt_at` ahead by a lease: if the sender dies, the delivery is
 * due again when the lease ends (at least once). An attempt's record applies only to its own
 * claim (its attempt number), so a sender whose lease ran out cannot overwrite what came after.
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
  id: number | string;
  endpoint_id: string;
  webhook_id: string;
  body: string;
  attempt_count: number;
  created_at: Date | string;
  give_up_at: Date | string | null;
  url: string;
  secret: string;
};

export async function claimDue(
  db: Db,
  { now, limit, leaseMs }: { now: Date; limit: number; leaseMs: number },
): Promise<ClaimedDelivery[]> {
  const rows = rowsOf<ClaimRow>(
    await db.execute(sql`
      WITH due AS (
        SELECT d.id FROM webhook_deliveries d
        WHERE d.status = 'pending' AND d.next_attempt_at <= ${now.toISOString()}::timestamptz
          AND EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = d.endpoint_id AND e.enabled)
        ORDER BY d.next_attempt_at
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
      UPDATE webhook_deliveries d
      SET next_attempt_at = ${new Date(now.getTime() + leaseMs).toISOString()}::timestamptz,
        attempt_count = d.attempt_count + 1
      FROM due, webhook_endpoints e
      WHERE d.id = due.id AND e.id = d.endpoint_id
      RETURNING d.id, d.endpoint_id, d.webhook_id, d.body, d.attempt_count, d.created_at,
        d.give_up_at, e.url, e.secret`),
  );
  return rows.map((row) => ({
    id: Number(row.id),
    endpointId: row.endpoint_id,
    webhookId: row.webhook_id,
    body: row.body,
    attempt: row.attempt_count,
    createdAt: new Date(row.created_at),
    giveUpAt: row.give_up_at === null ? null : new Date(row.give_up_at),
    url: row.url,
    sealedSecret: row.secret,
  }));
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
