import type { Address } from "viem";
import { parseSiweMessage } from "viem/siwe";
import type { Db } from "@/db/client";
import type { Clock } from "@/server/clock";
import type { Config } from "@/server/config";
import { AppError } from "@/server/errors";
import { spendNonce } from "@/server/siwe/nonces";
import { verifySiweMessage } from "@/server/siwe/verify";
import type { Session } from "./session";

/**
 * Signing in to the dashboard: a Sign-In with Ethereum message checked as strictly as a
 * deployment status update (domain, URI, chain, times, address, signature, and a nonce from
 * GET /v1/nonce spent once), or the admin API key.
 */
export async function signInWithWallet(
  { db, clock, config }: { db: Db; clock: Clock; config: Pick<Config, "siwe"> },
  input: { message: string; signature: string },
): Promise<Session> {
  const claimed = parseSiweMessage(input.message).address;
  if (!claimed)
    throw new AppError("invalid_siwe_message", "The message is not an EIP-4361 sign-in message.");
  const now = clock.now();
  const verified = await verifySiweMessage(
    config.siwe,
    { message: input.message, signature: input.signature, address: claimed },
    now,
  );
  await spendNonce(db, verified.nonce, verified.address, now);
  return walletSession(verified.address, config.siwe.adminAddresses);
}

export function walletSession(address: Address, adminAddresses: ReadonlySet<string>): Session {
  return adminAddresses.has(address.toLowerCase())
    ? { role: "admin", via: "wallet", address }
    : { role: "wallet", via: "wallet", address };
}

export function signInWithKey(
  presented: string,
  adminKeyMatches: (presented: string) => boolean,
): Session {
  if (!adminKeyMatches(presented))
    throw new AppError("unauthorized", "The admin API key is not valid.");
  return { role: "admin", via: "api_key" };
}
