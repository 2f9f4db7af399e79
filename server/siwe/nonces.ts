import { and, eq, gt, isNull, lt } from "drizzle-orm";
import { generateSiweNonce } from "viem/siwe";
import type { Db } from "@/db/client";
import { siweNonces } from "@/db/schema";
import type { Clock } from "@/server/clock";
import { AppError } from "@/server/errors";

/** How long a nonce may wait for its signed message. */
export const NONCE_TTL_MS = 10 * 60_000;

/**
 * Issues a single-use nonce for `address`, stored in the database so any instance can check it.
 * Nonces expired for a day are cleaned up on the way.
 */
export async function issueNonce(
  { db, clock }: { db: Db; clock: Clock },
  address: string,
): Promise<{ nonce: string; expiresAt: Date }> {
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + NONCE_TTL_MS);
  const nonce = generateSiweNonce();
  await db.delete(siweNonces).where(lt(siweNonces.expiresAt, new Date(now.getTime() - 86_400_000)));
  await db
    .insert(siweNonces)
    .values({ nonce, address: address.toLowerCase(), issuedAt: now, expiresAt });
  return { nonce, expiresAt };
}

/**
 * Spends `nonce` for `address` in one statement: only an issued, unused, unexpired nonce of
 * that address is spent, so of two requests with one nonce exactly one gets through. Run it
 * in the transaction of the change it authorises. Throws 401 saying why otherwise.
 */
export async function spendNonce(db: Db, nonce: string, address: string, now: Date): Promise<void> {
  const [spent] = await db
    .update(siweNonces)
    .set({ usedAt: now })
    .where(
      and(
        eq(siweNonces.nonce, nonce),
        eq(siweNonces.address, address.toLowerCase()),
        isNull(siweNonces.usedAt),
        gt(siweNonces.expiresAt, now),
      ),
    )
    .returning({ nonce: siweNonces.nonce });
  if (spent) return;

  const [known] = await db.select().from(siweNonces).where(eq(siweNonces.nonce, nonce));
  const detail = !known
    ? "The message's nonce was not issued by this service; get one from GET /v1/nonce."
    : known.address !== address.toLowerCase()
      ? "The message's nonce was issued to another address."
      : known.usedAt
        ? "The message's nonce has already been used; each signed message works once."
        : "The message's nonce has expired; get a new one from GET /v1/nonce.";
  throw new AppError("invalid_nonce", detail);
}
