import { createHash, randomBytes } from "node:crypto";

/**
 * Agent keys: `ak_<id>_<secret>`. The id (12 hex) is public and names the key in threads and
 * listings; the secret (32 random bytes, base64url) is shown once, and only its SHA-256 is kept.
 * With the id in the key, a chat finds its key by primary key and knows its caller before the
 * database is asked.
 */
export type PresentedKey = { id: string; secretHash: string };

const KEY_PATTERN = /^ak_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

export function parseAgentKey(token: string): PresentedKey | undefined {
  const match = KEY_PATTERN.exec(token);
  if (!match) return undefined;
  return { id: match[1] as string, secretHash: hashSecret(match[2] as string) };
}

export function newAgentKey(): { id: string; key: string; secretHash: string } {
  const id = randomBytes(6).toString("hex");
  const secret = randomBytes(32).toString("base64url");
  return { id, key: `ak_${id}_${secret}`, secretHash: hashSecret(secret) };
}

function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}
