import { createHash, randomBytes } from "node:crypto";
import { and, eq, gt, lt, sql } from "drizzle-orm";
import { getAddress } from "viem";
import type { Db } from "@/db/client";
import { prepared } from "@/db/prepared";
import { sessions } from "@/db/schema";

/**
 * Dashboard sessions, kept in the database: the cookie holds a random token and the `sessions`
 * table its SHA-256, so signing out stops a copied cookie at once on every instance. A wallet's
 * admin rights are read from ADMIN_ADDRESSES on every request, so removing one acts at once.
 */

export const SESSION_COOKIE = "agent_session";
export const SESSION_TTL_S = 12 * 60 * 60;

export type Session =
  | { role: "admin"; via: "api_key" }
  | { role: "admin"; via: "wallet"; address: `0x${string}` }
  | { role: "wallet"; via: "wallet"; address: `0x${string}` };

type Claims =
  | { via: "api_key"; adminKeyFingerprint: string }
  | { via: "wallet"; address: `0x${string}` };

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** Stores a new session; returns the Set-Cookie header that gives the browser its token. */
export async function startSession(
  db: Db,
  claims: Claims,
  { secure, now }: { secure: boolean; now: Date },
): Promise<string> {
  const token = randomBytes(32).toString("base64url");
  await db.insert(sessions).values({
    tokenHash: hashToken(token),
    via: claims.via,
    address: claims.via === "wallet" ? claims.address : null,
    adminKeyFingerprint: claims.via === "api_key" ? claims.adminKeyFingerprint : null,
    createdAt: now,
    expiresAt: new Date(now.getTime() + SESSION_TTL_S * 1000),
  });
  return cookie(token, SESSION_TTL_S, secure);
}

export function clearedSessionCookie(secure: boolean): string {
  return cookie("", 0, secure);
}

function cookie(value: string, maxAgeS: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeS}${secure ? "; Secure" : ""}`;
}

/** The session a request's cookie names, with its id (the token's hash), or null. */
export async function readSession(
  db: Db,
  headers: Headers,
  {
    adminAddresses,
    adminKeyFingerprint,
    now,
  }: { adminAddresses: ReadonlySet<string>; adminKeyFingerprint: string; now: Date },
): Promise<{ session: Session; id: string } | null> {
  const token = sessionToken(headers);
  if (!token) return null;
  const id = hashToken(token);
  const [row] = await sessionByToken(db).execute({ tokenHash: id, now: now.toISOString() });
  if (!row) return null;
  // A session opened with the admin key lasts while that key is the admin key.
  if (row.via === "api_key" || !row.address)
    return row.adminKeyFingerprint === adminKeyFingerprint
      ? { session: { role: "admin", via: "api_key" }, id }
      : null;
  const address = getAddress(row.address);
  const session: Session = adminAddresses.has(address.toLowerCase())
    ? { role: "admin", via: "wallet", address }
    : { role: "wallet", via: "wallet", address };
  return { session, id };
}

export async function endSession(db: Db, id: string | undefined): Promise<void> {
  if (id) await db.delete(sessions).where(eq(sessions.tokenHash, id));
}

/** Ends every session (an admin's "sign out everyone"); returns how many there were. */
export async function endAllSessions(db: Db): Promise<number> {
  const ended = await db.delete(sessions).returning({ tokenHash: sessions.tokenHash });
  return ended.length;
}

export async function purgeExpiredSessions(db: Db, now: Date): Promise<void> {
  await db.delete(sessions).where(lt(sessions.expiresAt, now));
}

function sessionByToken(db: Db) {
  return prepared(db, "session-by-token", () =>
    db
      .select({
        via: sessions.via,
        address: sessions.address,
        adminKeyFingerprint: sessions.adminKeyFingerprint,
      })
      .from(sessions)
      .where(
        and(
          eq(sessions.tokenHash, sql.placeholder("tokenHash")),
          gt(sessions.expiresAt, sql`${sql.placeholder("now")}::timestamptz`),
        ),
      )
      .prepare("session_by_token"),
  );
}

function sessionToken(headers: Headers): string | undefined {
  for (const part of headers.get("cookie")?.split(";") ?? []) {
    const [key, ...rest] = part.trim().split("=");
    if (key !== SESSION_COOKIE) continue;
    const value = rest.join("=");
    return TOKEN_PATTERN.test(value) ? value : undefined;
  }
  return undefined;
}
