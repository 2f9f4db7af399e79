import { randomUUID } from "node:crypto";
import { and, eq, isNull, lt, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { idempotencyKeys as keys } from "@/db/schema";

/** How long a stored answer is replayed: the day the IETF draft and Stripe give a key. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;

export type StoredAnswer = { status: number; headers: Record<string, string>; body: string };

export type Claim =
  /** This request does the work, and ends the claim with `keepAnswer` or `releaseClaim`. */
  | { kind: "claimed"; claim: string }
  | { kind: "in_flight" }
  | { kind: "other_request" }
  | { kind: "answered"; answer: StoredAnswer };

export type ClaimArgs = {
  caller: string;
  key: string;
  fingerprint: string;
  now: Date;
  /** A claim with no answer since then was left by a process that died mid-request. */
  staleBefore: Date;
};

/**
 * Claims `key` for `caller` in one statement: a new key, one whose answer is older than a day, or
 * one a dead process left (for the same request) is taken; otherwise the row says what the first
 * request made of it. Of any number of requests at once, exactly one is `claimed`.
 */
export async function claimKey(db: Db, args: ClaimArgs): Promise<Claim> {
  const claim = randomUUID();
  const expiredBefore = new Date(args.now.getTime() - IDEMPOTENCY_KEY_TTL_MS);
  // Twice at most: a row released between the insert and the read is claimed on the second try.
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const taken = await db
      .insert(keys)
      .values({
        caller: args.caller,
        key: args.key,
        fingerprint: args.fingerprint,
        claim,
        claimedAt: args.now,
      })
      .onConflictDoUpdate({
        target: [keys.caller, keys.key],
        set: {
          fingerprint: args.fingerprint,
          claim,
          claimedAt: args.now,
          answeredAt: null,
          status: null,
          headers: null,
          body: null,
        },
        setWhere: sql`${keys.claimedAt} < ${expiredBefore.toISOString()}
          OR (${keys.answeredAt} IS NULL AND ${keys.claimedAt} < ${args.staleBefore.toISOString()}
            AND ${keys.fingerprint} = ${args.fingerprint})`,
      })
      .returning({ claim: keys.claim });
    if (taken.length > 0) return { kind: "claimed", claim };
    const [row] = await db
      .select()
      .from(keys)
      .where(and(eq(keys.caller, args.caller), eq(keys.key, args.key)));
    if (!row) continue;
    if (row.fingerprint !== args.fingerprint) return { kind: "other_request" };
    if (row.answeredAt === null || row.status === null) return { kind: "in_flight" };
    return {
      kind: "answered",
      answer: { status: row.status, headers: row.headers ?? {}, body: row.body ?? "" },
    };
  }
  return { kind: "in_flight" };
}

/** Stores the answer of the claim's work, unless the claim was taken over meanwhile. */
export async function keepAnswer(
  db: Db,
  { caller, key, claim }: { caller: string; key: string; claim: string },
  answer: StoredAnswer,
  now: Date,
): Promise<void> {
  await db
    .update(keys)
    .set({ answeredAt: now, status: answer.status, headers: answer.headers, body: answer.body })
    .where(and(eq(keys.caller, caller), eq(keys.key, key), eq(keys.claim, claim)));
}

/** Gives the key back when the work was not done, so that a retry does it. */
export async function releaseClaim(
  db: Db,
  { caller, key, claim }: { caller: string; key: string; claim: string },
): Promise<void> {
  await db
    .delete(keys)
    .where(
      and(
        eq(keys.caller, caller),
        eq(keys.key, key),
        eq(keys.claim, claim),
        isNull(keys.answeredAt),
      ),
    );
}

/** Deletes the answers no retry may replay any more. */
export async function purgeOldIdempotencyKeys(db: Db, now: Date): Promise<void> {
  await db.delete(keys).where(lt(keys.claimedAt, new Date(now.getTime() - IDEMPOTENCY_KEY_TTL_MS)));
}

/**
 * Gives back every key still claimed: on the embedded database, whose one process is starting,
 * they were left by one that stopped mid-request.
 */
export async function releaseEveryClaim(db: Db): Promise<number> {
  const result = await db.execute(
    sql`DELETE FROM ${keys} WHERE ${keys.answeredAt} IS NULL RETURNING 1`,
  );
  return rowsOf(result).length;
}
