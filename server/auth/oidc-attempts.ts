import { createHash } from "node:crypto";
import { and, eq, gt, lt } from "drizzle-orm";
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

export async function storeAttempt(
  db: Db,
  {
    state,
    binding,
    ...attempt
  }: Omit<OidcAttempt, "bindingHash"> & { state: string; binding: string },
  now: Date,
): Promise<void> {
  await db.insert(oidcAttempts).values({
    stateHash: sha256(state),
    codeVerifier: attempt.codeVerifier,
    nonce: attempt.nonce,
    next: attempt.next,
    bindingHash: sha256(binding),
    createdAt: now,
    expiresAt: new Date(now.getTime() + ATTEMPT_TTL_S * 1000),
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
