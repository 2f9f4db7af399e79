import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { prepared } from "@/db/prepared";
import { authFailures } from "@/db/schema";
import { AppError } from "@/server/frame/errors";

/**
 * Throttling of wrong admin keys and failed wallet sign-ins per client address. Past
 * FREE_FAILURES, each failure blocks the client twice as long as the one before, and every
 * credential it sends while blocked is refused with 429, right or wrong. Requests already under
 * way when a block begins are not stopped: a burst of concurrent guesses gets through once.
 */

const FREE_FAILURES = 5;
const FORGET_AFTER_MS = 15 * 60_000;
const MAX_BLOCK_S = 15 * 60;

export async function blockedFor(db: Db, client: string, now: Date): Promise<number | undefined> {
  const [row] = await blockOf(db).execute({ client });
  const until = row?.blockedUntil;
  if (!until || until <= now) return undefined;
  return Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
}

/** Counts a failed credential of the client, in one statement (exact across instances). */
export async function recordFailure(db: Db, client: string, now: Date): Promise<void> {
  const f = authFailures;
  const stale = sql`${f.lastFailedAt} <= ${new Date(now.getTime() - FORGET_AFTER_MS).toISOString()}::timestamptz`;
  const failures = sql`(CASE WHEN ${stale} THEN 1 ELSE ${f.failures} + 1 END)`;
  await db
    .insert(f)
    .values({ client, failures: 1, lastFailedAt: now })
    .onConflictDoUpdate({
      target: f.client,
      set: {
        failures,
        lastFailedAt: now,
        blockedUntil: sql`CASE WHEN ${failures} > ${FREE_FAILURES}
          THEN ${now.toISOString()}::timestamptz
            + least(power(2, ${failures} - ${FREE_FAILURES} - 1), ${MAX_BLOCK_S}) * interval '1 second'
          ELSE NULL END`,
      },
    });
}

/** A client that got in is forgiven its earlier failures. */
export async function forgetFailures(db: Db, client: string): Promise<void> {
  await db.delete(authFailures).where(eq(authFailures.client, client));
}

export async function purgeOldFailures(db: Db, now: Date): Promise<void> {
  await db
    .delete(authFailures)
    .where(
      and(
        lt(authFailures.lastFailedAt, new Date(now.getTime() - FORGET_AFTER_MS)),
        or(isNull(authFailures.blockedUntil), lt(authFailures.blockedUntil, now)),
      ),
    );
}

export function tooManyAttempts(retryAfterS: number): AppError {
  return new AppError(
    "too_many_attempts",
    `Too many failed sign-ins or wrong keys from your address; try again in ${retryAfterS} s.`,
    { retryAfterS },
  );
}

function blockOf(db: Db) {
  return prepared(db, "auth-block-of", () =>
    db
      .select({ blockedUntil: authFailures.blockedUntil })
      .from(authFailures)
      .where(eq(authFailures.client, sql.placeholder("client")))
      .prepare("auth_block_of"),
  );
}
