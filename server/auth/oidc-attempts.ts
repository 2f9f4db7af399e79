import { createHash } from "node:crypto";
import { and, asc, eq, gt, lt, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { oidcAttempts } from "@/db/schema";

/**
 * OIDC sign-ins under way, kept in the database (not in a cookie, not in memory) so that any
 * instance can take the provider's callback, and a state is spent exactly once across them all.
 * Only hashes of the state and of the browser binding are kept: a copy of the table can finish
 * no sign-in.
 */

/** How long a person has at the provider before the attempt is refused. */
export const ATTEMPT_TTL_S = 10 * 60;

export type OidcAttempt = {
  codeVerifier: string;
  nonce: string;
  next: string | null;
  bindingHash: string;
};

export const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");

/**
 * Attempts one client may have under way: each is a row anyone may add, so a client's are
 * bounded (a team behind one address still has room: a finished attempt frees its place).
 */
export const MAX_ATTEMPTS_PER_CLIENT = 20;

/** Its own class of advisory locks, apart from the agents' and the migrations'. */
const ATTEMPT_LOCK_CLASS = 1_650_812_738;

/**
 * Stores the attempt unless its client has MAX_ATTEMPTS_PER_CLIENT under way: then the seconds
 * until its oldest one ends. The client's lock makes count and insert one decision across
 * instances (transaction-level, as PgBouncer's transaction pooling needs).
 */
export async function storeAttempt(
  db: Db,
  {
    state,
    binding,
    client,
    ...attempt
  }: Omit<OidcAttempt, "bindingHash"> & { state: string; binding: string; client: string },
  now: Date,
): Promise<{ retryAfterS: number } | undefined> {
  return db.transaction(async (tx) => {
    await tx.execute(
      sql`SELECT pg_advisory_xact_lock(${sql.raw(String(ATTEMPT_LOCK_CLASS))}, hashtext(${client}::text))`,
    );
    const underWay = await tx
      .select({ expiresAt: oidcAttempts.expiresAt })
      .from(oidcAttempts)
      .where(and(eq(oidcAttempts.client, client), gt(oidcAttempts.expiresAt, now)))
      .orderBy(asc(oidcAttempts.expiresAt))
      .limit(MAX_ATTEMPTS_PER_CLIENT);
    const oldest = underWay[0];
    if (oldest && underWay.length >= MAX_ATTEMPTS_PER_CLIENT)
      return {
        retryAfterS: Math.max(1, Math.ceil((oldest.expiresAt.getTime() - now.getTime()) / 1000)),
      };
    await tx.insert(oidcAttempts).values({
      stateHash: sha256(state),
      codeVerifier: attempt.codeVerifier,
      nonce: attempt.nonce,
      next: attempt.next,
      bindingHash: sha256(binding),
      client,
      createdAt: now,
      expiresAt: new Date(now.getTime() + ATTEMPT_TTL_S * 1000),
    });
    return undefined;
  });
}

/**
 * The attempt a state names, deleted in the same statement that reads it: of two callbacks with
 * one state (a replay, or a double click), one gets it and the other nothing.
 */
export async function spendAttempt(db: Db, state: string, now: Date): Promise<OidcAttempt | null> {
  const [row] = await db
    .delete(oidcAttempts)
    .where(and(eq(oidcAttempts.stateHash, sha256(state)), gt(oidcAttempts.expiresAt, now)))
    .returning({
      codeVerifier: oidcAttempts.codeVerifier,
      nonce: oidcAttempts.nonce,
      next: oidcAttempts.next,
      bindingHash: oidcAttempts.bindingHash,
    });
  return row ?? null;
}

export async function purgeExpiredAttempts(db: Db, now: Date): Promise<void> {
  await db.delete(oidcAttempts).where(lt(oidcAttempts.expiresAt, now));
}
