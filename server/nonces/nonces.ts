import { randomBytes } from "node:crypto";
import { and, eq, gt, isNull, lt } from "drizzle-orm";
import type { Db } from "@/db/client";
import { siweNonces } from "@/db/schema";
import type { SiweConfig } from "@/server/frame/config";
import { AppError } from "@/server/frame/errors";
import type { Clock } from "@/server/kit/clock";
import { countRequest } from "@/server/rate-limits";

/** How long a nonce may wait for its signed message. */
export const NONCE_TTL_MS = 10 * 60_000;

/** A single-use nonce for `address`, in the database for any instance, rate-limited per client. */
export async function issueNonce(
  {
    db,
    clock,
    client,
    config,
  }: {
    db: Db;
    clock: Clock;
    client: string;
    config: { siwe: Pick<SiweConfig, "nonceRateLimitRpm"> };
  },
  address: string,
): Promise<{ nonce: string; user_address: string; expires_at: string }> {
  const now = clock.now();
  const limit = config.siwe.nonceRateLimitRpm;
  if (limit !== null)
    await countRequest(db, { scope: "nonce", client, limit, now, what: "nonces" });
  const expiresAt = new Date(now.getTime() + NONCE_TTL_MS);
  // 128 bits from the CSPRNG, in hex (EIP-4361 wants letters and digits); viem's
  // generateSiweNonce draws from Math.random.
  const nonce = randomBytes(16).toString("hex");
  await db
    .insert(siweNonces)
    .values({ nonce, address: address.toLowerCase(), issuedAt: now, expiresAt });
  return { nonce, user_address: address, expires_at: expiresAt.toISOString() };
}

/** Deletes nonces long expired; kept a while, late use is answered "expired", not "not issued". */
export async function purgeExpiredNonces(db: Db, now: Date): Promise<void> {
  await db
    .delete(siweNonces)
    .where(lt(siweNonces.expiresAt, new Date(now.getTime() - NONCE_TTL_MS)));
}

/**
 * Spends `nonce` for `address` in one statement, so that of two requests with one nonce exactly
 * one gets through. Run it in the transaction of the change it authorises; throws 401 otherwise.
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
