import { parseSiweMessage } from "viem/siwe";
import type { Db } from "@/db/client";
import { findAdminByWallet, findAdminKey, parseAdminKey } from "@/server/admins";
import { recordChange } from "@/server/audit";
import type { Config } from "@/server/frame/config";
import { AppError } from "@/server/frame/errors";
import type { Clock } from "@/server/kit/clock";
import { spendNonce } from "@/server/nonces";
import { verifySiweMessage, wrongPurpose } from "@/server/siwe";
import { isAdmin, type Session, startSession, walletSession } from "./session";
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
  requestId?: string;
};

export type SignedIn = { session: Session; cookie: string };

export async function signInWithWallet(
  ctx: SignInContext,
  input: { message: string; signature: string },
): Promise<SignedIn> {
  const claimed = claimedAddress(input.message);
  const who = claimed ? `wallet:${claimed}` : "wallet";
  return throttled(ctx, { via: "wallet", who }, async () => {
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
  const personal = parseAdminKey(presented);
  // Never the key itself: a personal key's id, or only that a key was tried.
  const who = personal ? `admin_key:${personal.id}` : "admin-key";
  return throttled(ctx, { via: personal ? "personal_key" : "api_key", who }, async () => {
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

/**
 * Runs a sign-in check for a client that is not blocked; stores the session it yields. An admin's
 * sign-in and every refused one are audited. A refusal is bounded per client by the throttle (a
 * blocked client's attempts are neither checked nor recorded); a wallet that is no admin signing
 * in is not a change of the service, and adds nothing.
 */
async function throttled(
  ctx: SignInContext,
  attempt: { via: string; who: string },
  check: () => Promise<Session>,
): Promise<SignedIn> {
  const { db, client, requestId } = ctx;
  const waitS = await blockedFor(db, client, ctx.clock.now());
  if (waitS !== undefined) throw tooManyAttempts(waitS);
  let session: Session;
  try {
    session = await check();
  } catch (error) {
    if (error instanceof AppError) {
      const at = ctx.clock.now();
      await db.transaction(async (tx) => {
        await recordFailure(tx, client, at);
        await recordChange(
          tx,
          { session: null, anonymous: true, requestId, client },
          {
            at,
            action: "sign_in.refused",
            target: attempt.who,
            after: { via: attempt.via, reason: error.detail },
          },
        );
      });
    }
    throw error;
  }
  await forgetFailures(db, client);
  const claims =
    session.via === "wallet"
      ? { via: "wallet" as const, address: session.address }
      : session.via === "personal_key"
        ? { via: "personal_key" as const, key: session.key }
        : { via: "api_key" as const, adminKeyFingerprint: ctx.adminKeyFingerprint };
  const now = ctx.clock.now();
  // The session and its entry together, or neither.
  const cookie = await db.transaction(async (tx) => {
    const made = await startSession(tx, claims, {
      secure: ctx.config.publicUrl.startsWith("https:"),
      now,
    });
    if (isAdmin(session))
      await recordChange(
        tx,
        { session, requestId, client, sessionId: "signing-in" },
        {
          at: now,
          action: "sign_in.succeeded",
          target: signedInAs(session),
          after: { via: session.via, role: session.role },
        },
      );
    return made;
  });
  return { session, cookie };
}

function signedInAs(session: Session): string {
  if (session.via === "personal_key") return `admin:${session.admin}`;
  if (session.via === "api_key") return "admin-key";
  if (session.admin) return `admin:${session.admin}`;
  return session.via === "wallet" ? `wallet:${session.address}` : `oidc:${session.email}`;
}

/** The address a sign-in message claims, if it parses as one; for the audit log only. */
function claimedAddress(message: string): string | undefined {
  try {
    return parseSiweMessage(message).address;
  } catch {
    return undefined;
  }
}
