import { createHash } from "node:crypto";
import { jwtVerify, SignJWT } from "jose";
import { getAddress } from "viem";

/**
 * Dashboard sessions: a JWT (HS256, signed with `jose`) in an httpOnly, SameSite=Lax cookie.
 * It holds who signed in and how; whether a wallet is an admin is decided on every request
 * from ADMIN_ADDRESSES, so removing an address takes effect at once. The signing key is
 * derived from the admin API key: nothing else to configure or share between instances, and
 * rotating the admin key ends every session.
 */

export const SESSION_COOKIE = "agent_session";
export const SESSION_TTL_S = 12 * 60 * 60;

export type Session =
  | { role: "admin"; via: "api_key" }
  | { role: "admin"; via: "wallet"; address: `0x${string}` }
  | { role: "wallet"; via: "wallet"; address: `0x${string}` };

type Claims = { via: "api_key" } | { via: "wallet"; address: `0x${string}` };

export function sessionKey(adminKey: string): Uint8Array {
  return createHash("sha256").update(`agent-service session v1\0${adminKey}`).digest();
}

export async function sessionCookie(
  claims: Claims,
  { key, secure, now }: { key: Uint8Array; secure: boolean; now: Date },
): Promise<string> {
  const issuedAt = Math.floor(now.getTime() / 1000);
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256" })
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + SESSION_TTL_S)
    .sign(key);
  return cookie(token, SESSION_TTL_S, secure);
}

export function clearedSessionCookie(secure: boolean): string {
  return cookie("", 0, secure);
}

function cookie(value: string, maxAgeS: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeS}${secure ? "; Secure" : ""}`;
}

/** The session a request's cookie carries, or null (absent, forged, expired). */
export async function readSession(
  headers: Headers,
  { key, adminAddresses, now }: { key: Uint8Array; adminAddresses: ReadonlySet<string>; now: Date },
): Promise<Session | null> {
  const token = cookieValue(headers.get("cookie"), SESSION_COOKIE);
  if (!token) return null;
  try {
    const { payload } = await jwtVerify(token, key, { algorithms: ["HS256"], currentDate: now });
    if (payload.via === "api_key") return { role: "admin", via: "api_key" };
    if (payload.via === "wallet" && typeof payload.address === "string") {
      const address = getAddress(payload.address);
      return adminAddresses.has(address.toLowerCase())
        ? { role: "admin", via: "wallet", address }
        : { role: "wallet", via: "wallet", address };
    }
  } catch {
    // forged or expired: no session
  }
  return null;
}

function cookieValue(header: string | null, name: string): string | undefined {
  for (const part of header?.split(";") ?? []) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return rest.join("=") || undefined;
  }
  return undefined;
}
