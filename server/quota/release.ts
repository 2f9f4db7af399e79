import { eq, lt, type SQL, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { agentQuotas, chatReservations } from "@/db/schema";
import { agentLockShared, agentsLockedShared } from "@/server/kit/agent-lock";
import { writeReliably } from "@/server/kit/write-reliably";
import { COUNTERS, periodValue } from "./counters";

/**
 * Release: a use given back at most once, to the periods it was taken from, when its reply was not
 * delivered. Only the statement that deletes the chat's reservation (or moves the run out of
 * `running`) gives it back, so never twice and never after the reply was stored.
 */

export async function releaseMessage(
  db: Db,
  { aid, reservationId }: { aid: string; reservationId: number },
): Promise<void> {
  await writeReliably(`giving back the message use of chat reservation ${reservationId}`, () =>
    giveBackMessages(
      db,
      sql`DELETE FROM ${chatReservations} WHERE ${chatReservations.id} = ${reservationId}
          AND (SELECT ${agentLockShared(aid)}) IS NOT NULL
          RETURNING aid, day, month, held_tokens`,
    ),
  );
}

/**
 * Gives back the use of a run of `aid` that counted in `month`. Call it in the transaction that
 * moves the run out of `running`, and only if it did: that is what makes it at most once.
 */
export async function releaseRun(
  db: Db,
  { aid, month }: { aid: string; month: string },
): Promise<void> {
  const set: Record<string, SQL> = { tokenHolds: sql`GREATEST(${agentQuotas.tokenHolds} - 1, 0)` };
  // Autonomous counters have no daily period: `day` is never read for them.
  for (const counter of COUNTERS.autonomous) {
    const count = agentQuotas[counter.count];
    const decremented = sql`GREATEST(${count} - 1, 0)`;
    set[counter.count] = counter.periodColumn
      ? sql`CASE WHEN ${agentQuotas[counter.periodColumn]} = ${periodValue(counter, month, month)} THEN ${decremented} ELSE ${count} END`
      : decremented;
  }
  await db.update(agentQuotas).set(set).where(eq(agentQuotas.aid, aid));
}

/** Gives back chats' uses reserved before `before`, or all (start of the embedded database). */
export async function sweepReservations(db: Db, before?: Date): Promise<number> {
  // A chat waiting for tool approvals keeps its reservation; the wait's expiry gives it back.
  const old = sql`${before === undefined ? sql`true` : lt(chatReservations.reservedAt, before)}
    AND NOT EXISTS (SELECT 1 FROM paused_turns p WHERE p.reservation_id = ${chatReservations.id})`;
  // Their agents' locks first, in one order (server/kit/agent-lock.ts).
  return giveBackMessages(
    db,
    sql`DELETE FROM ${chatReservations} WHERE ${old}
        AND ${agentsLockedShared(sql`SELECT aid FROM ${chatReservations} WHERE ${old}`)}
        RETURNING aid, day, month, held_tokens`,
  );
}

/** The longest a chat can hold its reservation: its model call's bound, and time to store. */
export function reservationLifetimeMs(llmTimeoutMs: number): number {
  return llmTimeoutMs + 30_000;
}

/**
 * Gives back, in one statement, each use `released` (a DELETE of reservations) returns, and the
 * tokens it held.
 */
async function giveBackMessages(db: Db, released: SQL): Promise<number> {
  const q = agentQuotas;
  const result = await db.execute(sql`
    WITH released AS (${released}), refunded AS (
      UPDATE ${q} SET
        ${sql.identifier("message_count_total")} = GREATEST(${q.messageCountTotal}
          - (SELECT count(*) FROM released r WHERE r.aid = ${q.aid}), 0),
        ${sql.identifier("message_count_monthly")} = GREATEST(${q.messageCountMonthly}
          - (SELECT count(*) FROM released r WHERE r.aid = ${q.aid} AND r.month = ${q.messageMonth}), 0),
        ${sql.identifier("message_count_daily")} = GREATEST(${q.messageCountDaily}
          - (SELECT count(*) FROM released r WHERE r.aid = ${q.aid} AND r.day = ${q.messageDay}), 0),
        ${sql.identifier("token_holds")} = GREATEST(${q.tokenHolds}
          - (SELECT sum(r.held_tokens) FROM released r WHERE r.aid = ${q.aid}), 0)
      WHERE ${q.aid} IN (SELECT aid FROM released)
    )
    SELECT count(*)::int AS uses FROM released`);
  return rowsOf<{ uses: number }>(result)[0]?.uses ?? 0;
}
