import { createHash, randomBytes } from "node:crypto";

/**
 * Agent keys: `ak_<id>_<secret>`. The public id names the key in threads and listings; only the
 * secret's SHA-256 is kept. With the id in the key, a chat finds its key by primary key.
 */
export type PresentedKey = { id: string; secretHash: string };

export const AGENT_KEY_PREFIX = "ak_";
const KEY_PATTERN = /^ak_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

/** A well-formed agent key's id and the hash of its secret; undefined for any other token. */
export function parseAgentKey(token: string): PresentedKey | undefined {
  const match = KEY_PATTERN.exec(token);
  if (!match) return undefined;
  return { id: match[1] as string, secretHash: hashSecret(match[2] as string) };
}

// No key has an empty id, so the chat's statement refuses this one as it refuses a wrong key.
const MALFORMED_KEY: PresentedKey = Object.freeze({ id: "", secretHash: "" });

/**
 * The agent key a bearer token presents: any token that starts as agent keys do. One that does
 * not parse is refused as invalid_key, never taken for an anonymous caller, so that a client that
 * sends a damaged key learns so rather than chatting in a thread it did not mean.
 */
export function presentedKey(token: string): PresentedKey | undefined {
  if (!token.startsWith(AGENT_KEY_PREFIX)) return undefined;
  return parseAgentKey(token) ?? MALFORMED_KEY;
}

export function newAgentKey(): { id: string; key: string; secretHash: string } {
  const id = randomBytes(6).toString("hex");
  const secret = randomBytes(32).toString("base64url");
  return { id, key: `ak_${id}_${secret}`, secretHash: hashSecret(secret) };
}

function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}
