import { createHash, randomBytes } from "node:crypto";
import { and, eq, gt, lt, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { getAddress } from "viem";
import type { Db } from "@/db/client";
import { prepared } from "@/db/prepared";
import { adminKeys, admins, sessions } from "@/db/schema";
import { ADMIN_ROLES, type AdminRole, lowerRole } from "@/server/admins";
import { type AuditSource, recordChange } from "@/server/audit";
import type { Clock } from "@/server/kit/clock";

/**
 * Dashboard sessions, kept in the database: the cookie holds a random token and the `sessions`
 * table its SHA-256, so signing out stops a copied cookie at once on every instance. Roles are
 * read on every request (the admins list, ADMIN_ADDRESSES), so a change acts at once.
 */

export const SESSION_COOKIE = "agent_session";
export const SESSION_TTL_S = 12 * 60 * 60;

/**
 * Who a request is: an admin with a role (the ADMIN_API_KEY is the bootstrap owner; a person acts
 * with their role, through their key or their wallet), or a signed-in wallet that is no admin.
 */
export type Session =
  | { role: "owner"; via: "api_key" }
  | { role: AdminRole; via: "personal_key"; admin: string; key: string }
  | { role: AdminRole | "wallet"; via: "wallet"; address: `0x${string}`; admin?: string }
  /** Signed in with OIDC: a verified email in the admins list, or one OIDC_ROLE_RULES allow. */
  | { role: AdminRole; via: "oidc"; email: string; admin?: string };

export type AdminSession = Session & { role: AdminRole };

export const isAdmin = (session: Session | null | undefined): session is AdminSession =>
  !!session && session.role !== "wallet";

type Claims =
  | { via: "api_key"; adminKeyFingerprint: string }
  | { via: "personal_key"; key: string }
  | { via: "wallet"; address: `0x${string}` }
  /** `ruleRole`: what OIDC_ROLE_RULES gave at sign-in, kept for when the admins list has no entry. */
  | { via: "oidc"; email: string; ruleRole: AdminRole | null };

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
    adminKeyId: claims.via === "personal_key" ? claims.key : null,
    email: claims.via === "oidc" ? claims.email : null,
    role: claims.via === "oidc" ? claims.ruleRole : null,
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
  const session = sessionOf(row, { adminAddresses, adminKeyFingerprint, now });
  return session ? { session, id } : null;
}

type SessionRead = {
  via: string;
  address: string | null;
  adminKeyFingerprint: string | null;
  keyId: string | null;
  keyAdmin: string | null;
  keyRole: AdminRole | null;
  keyAdminRole: AdminRole | null;
  keyExpiresAt: Date | null;
  walletAdmin: string | null;
  walletRole: AdminRole | null;
  email: string | null;
  ruleRole: string | null;
  emailAdmin: string | null;
  emailRole: AdminRole | null;
};

/**
 * The session a stored row stands for, with the roles as they are now: a session opened with the
 * admin key lasts while that key is the admin key, one opened with a personal key while that key
 * works, and a wallet has the role the admins list or ADMIN_ADDRESSES gives it today.
 */
function sessionOf(
  row: SessionRead,
  {
    adminAddresses,
    adminKeyFingerprint,
    now,
  }: { adminAddresses: ReadonlySet<string>; adminKeyFingerprint: string; now: Date },
): Session | null {
  if (row.via === "api_key")
    return row.adminKeyFingerprint === adminKeyFingerprint
      ? { role: "owner", via: "api_key" }
      : null;
  if (row.via === "personal_key") {
    if (!row.keyId || !row.keyAdmin || !row.keyRole || !row.keyAdminRole || !row.keyExpiresAt)
      return null;
    if (row.keyExpiresAt <= now) return null;
    return {
      role: lowerRole(row.keyRole, row.keyAdminRole),
      via: "personal_key",
      admin: row.keyAdmin,
      key: row.keyId,
    };
  }
  if (row.via === "oidc") {
    // The admins list first (a change of it acts at once); else the rules' role at sign-in.
    if (!row.email) return null;
    if (row.emailAdmin && row.emailRole)
      return { role: row.emailRole, via: "oidc", email: row.email, admin: row.emailAdmin };
    return isAdminRole(row.ruleRole) ? { role: row.ruleRole, via: "oidc", email: row.email } : null;
  }
  if (!row.address) return null;
  return walletSession(getAddress(row.address), adminAddresses, {
    admin: row.walletAdmin ?? undefined,
    role: row.walletRole ?? undefined,
  });
}

/**
 * A wallet's session: ADMIN_ADDRESSES are owners whatever the admins list says (configuration is
 * the bootstrap, as ADMIN_API_KEY is); others have the role their entry in the list gives.
 */
export function walletSession(
  address: `0x${string}`,
  adminAddresses: ReadonlySet<string>,
  listed: { admin?: string; role?: AdminRole },
): Session {
  const role = adminAddresses.has(address.toLowerCase()) ? "owner" : (listed.role ?? "wallet");
  return listed.admin
    ? { role, via: "wallet", address, admin: listed.admin }
    : { role, via: "wallet", address };
}

export async function endSession(db: Db, id: string | undefined): Promise<void> {
  if (id) await db.delete(sessions).where(eq(sessions.tokenHash, id));
}

/** Ends every session (an owner's "sign out everyone"), audited; returns how many there were. */
export async function endAllSessions({
  db,
  clock,
  ...source
}: { db: Db; clock: Clock } & AuditSource): Promise<number> {
  return db.transaction(async (tx) => {
    const ended = await tx.delete(sessions).returning({ tokenHash: sessions.tokenHash });
    await recordChange(tx, source, {
      at: clock.now(),
      action: "sessions.ended",
      target: "sessions",
      after: { ended: ended.length },
    });
    return ended.length;
  });
}

export async function purgeExpiredSessions(db: Db, now: Date): Promise<void> {
  await db.delete(sessions).where(lt(sessions.expiresAt, now));
}

const keyAdmins = alias(admins, "key_admins");
const walletAdmins = alias(admins, "wallet_admins");
const emailAdmins = alias(admins, "email_admins");

function sessionByToken(db: Db) {
  return prepared(db, "session-by-token", () =>
    db
      .select({
        via: sessions.via,
        address: sessions.address,
        adminKeyFingerprint: sessions.adminKeyFingerprint,
        keyId: adminKeys.id,
        keyAdmin: adminKeys.adminId,
        keyRole: adminKeys.role,
        keyAdminRole: keyAdmins.role,
        keyExpiresAt: adminKeys.expiresAt,
        walletAdmin: walletAdmins.id,
        walletRole: walletAdmins.role,
        email: sessions.email,
        ruleRole: sessions.role,
        emailAdmin: emailAdmins.id,
        emailRole: emailAdmins.role,
      })
      .from(sessions)
      .leftJoin(adminKeys, eq(adminKeys.id, sessions.adminKeyId))
      .leftJoin(keyAdmins, eq(keyAdmins.id, adminKeys.adminId))
      .leftJoin(walletAdmins, eq(walletAdmins.wallet, sql`lower(${sessions.address})`))
      .leftJoin(emailAdmins, eq(emailAdmins.email, sessions.email))
      .where(
        and(
          eq(sessions.tokenHash, sql.placeholder("tokenHash")),
          gt(sessions.expiresAt, sql`${sql.placeholder("now")}::timestamptz`),
        ),
      )
      .prepare("session_by_token"),
  );
}

const isAdminRole = (role: string | null): role is AdminRole =>
  role !== null && (ADMIN_ROLES as readonly string[]).includes(role);

function sessionToken(headers: Headers): string | undefined {
  for (const part of headers.get("cookie")?.split(";") ?? []) {
    const [key, ...rest] = part.trim().split("=");
    if (key !== SESSION_COOKIE) continue;
    const value = rest.join("=");
    return TOKEN_PATTERN.test(value) ? value : undefined;
  }
  return undefined;
}
