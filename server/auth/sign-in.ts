import { parseSiweMessage } from "viem/siwe";
import type { Db } from "@/db/client";
import { findAdminByWallet, findAdminKey, parseAdminKey } from "@/server/admins";
import type { Config } from "@/server/frame/config";
import { AppError } from "@/server/frame/errors";
import type { Clock } from "@/server/kit/clock";
import { spendNonce } from "@/server/nonces";
import { verifySiweMessage, wrongPurpose } from "@/server/siwe";
import { type Session, startSession, walletSession } from "./session";
import { blockedFor, forgetFailures, recordFailure, tooManyAttempts } from "./throttle";

/**
 * Signing in to the dashboard: a Sign-In with Ethereum message checked as strictly as a status
 * update, or the admin API key. A failure counts against the client (throttle.ts), and a blocked
 * client is refused before its credential is looked at.
 */

type SignInContext = {
  db: Db;
  clock: Clock;
  config: Pick<Config, "siwe" | "publicUrl">;
  client: string;
  adminKeyMatches(presented: string): boolean;
  adminKeyFingerprint: string;
};

export type SignedIn = { session: Session; cookie: string };

export async function signInWithWallet(
  ctx: SignInContext,
  input: { message: string; signature: string },
): Promise<SignedIn> {
  return throttled(ctx, async () => {
    const claimed = parseSiweMessage(input.message).address;
    if (!claimed)
      throw new AppError("invalid_siwe_message", "The message is not an EIP-4361 sign-in message.");
    const now = ctx.clock.now();
    const verified = await verifySiweMessage(
      ctx.config.siwe,
      { message: input.message, signature: input.signature, address: claimed },
      now,
    );
    // Spent before anything else is checked: a refused sign-in message cannot be sent again.
    await spendNonce(ctx.db, verified.nonce, verified.address, now);
    if (verified.purpose !== "sign-in" || verified.statement?.trimStart().startsWith("{"))
      throw wrongPurpose("sign-in");
    const listed = await findAdminByWallet(ctx.db, verified.address);
    return walletSession(verified.address, ctx.config.siwe.adminAddresses, listed ?? {});
  });
}

/** The ADMIN_API_KEY (the bootstrap owner) or a person's own admin key. */
export async function signInWithKey(ctx: SignInContext, presented: string): Promise<SignedIn> {
  return throttled(ctx, async () => {
    const personal = parseAdminKey(presented);
    if (personal) {
      const found = await findAdminKey(ctx.db, personal, ctx.clock.now());
      if (!found)
        throw new AppError(
          "unauthorized",
          "The admin key is not valid: unknown, revoked or expired.",
        );
      return { role: found.role, via: "personal_key", admin: found.admin, key: found.key };
    }
    if (!ctx.adminKeyMatches(presented))
      throw new AppError("unauthorized", "The admin API key is not valid.");
    return { role: "owner", via: "api_key" };
  });
}

/** Runs a sign-in check for a client that is not blocked; stores the session it yields. */
async function throttled(ctx: SignInContext, check: () => Promise<Session>): Promise<SignedIn> {
  const { db, client } = ctx;
  const waitS = await blockedFor(db, client, ctx.clock.now());
  if (waitS !== undefined) throw tooManyAttempts(waitS);
  let session: Session;
  try {
    session = await check();
  } catch (error) {
    if (error instanceof AppError) await recordFailure(db, client, ctx.clock.now());
    throw error;
  }
  await forgetFailures(db, client);
  const claims =
    session.via === "wallet"
      ? { via: "wallet" as const, address: session.address }
      : session.via === "personal_key"
        ? { via: "personal_key" as const, key: session.key }
        : { via: "api_key" as const, adminKeyFingerprint: ctx.adminKeyFingerprint };
  const cookie = await startSession(db, claims, {
    secure: ctx.config.publicUrl.startsWith("https:"),
    now: ctx.clock.now(),
  });
  return { session, cookie };
}
