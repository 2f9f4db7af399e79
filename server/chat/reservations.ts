import { lt, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { chatRateLimits, chatReservations } from "@/db/schema";
import { refundReleasedMessageUses } from "@/server/quota";
import type { StoreGuard } from "@/server/threads";
import { writeReliably } from "@/server/write-reliably";

/**
 * A chat's message use is recorded in `chat_reservations` from the statement that counts it
 * until the statement that stores its reply (delivered) or gives it back (not delivered); each
 * deletes the row, and does its work only if it did, so a use is given back at most once and
 * never after its reply was stored. What a process that died leaves behind is given back by
 * the sweep.
 */

/** The reservation row's delete, as the guard of the exchange's store. */
export function takeReservation(id: number): StoreGuard {
  return {
    key: "reservation",
    build: () =>
      sql`DELETE FROM ${chatReservations}
          WHERE ${chatReservations.id} = ${sql.placeholder("guardReservationId")}::bigint
          RETURNING id`,
    values: { guardReservationId: id },
  };
}

/** Gives the use back, unless its reply was stored or it was already given back. */
export async function releaseReservation(db: Db, id: number): Promise<void> {
  await writeReliably(`giving back the message use of chat reservation ${id}`, () =>
    refundReleasedMessageUses(
      db,
      sql`DELETE FROM ${chatReservations} WHERE ${chatReservations.id} = ${id}
          RETURNING aid, day, month`,
    ),
  );
}

/**
 * Gives back the uses of chats that cannot be alive any more: reserved before `before`, or all
 * of them (`before` undefined: at the start of the one process of an embedded database).
 * Returns how many it gave back.
 */
export async function sweepReservations(db: Db, before?: Date): Promise<number> {
  const which =
    before === undefined ? sql`` : sql`WHERE ${lt(chatReservations.reservedAt, before)}`;
  return refundReleasedMessageUses(
    db,
    sql`DELETE FROM ${chatReservations} ${which} RETURNING aid, day, month`,
  );
}

/** The longest a chat can hold its reservation: its model call's bound, and time to store. */
export function reservationLifetimeMs(llmTimeoutMs: number): number {
  return llmTimeoutMs + 30_000;
}

/** Deletes chat rate-limit windows long over (housekeeping). */
export async function purgeOldChatWindows(db: Db, now: Date): Promise<void> {
  await db
    .delete(chatRateLimits)
    .where(lt(chatRateLimits.windowStartedAt, new Date(now.getTime() - 2 * 60_000)));
}
