import { createHash, randomBytes } from "node:crypto";

/**
 * Personal admin keys: `admk_<id>_<secret>`, as agent keys are made (server/agent-keys): the id
 * finds the key by primary key, and only the secret's SHA-256 is kept.
 */
export type PresentedAdminKey = { id: string; secretHash: string };

export const ADMIN_KEY_PREFIX = "admk_";
const KEY_PATTERN = /^admk_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

/** A well-formed personal admin key's id and its secret's hash; undefined for any other token. */
export function parseAdminKey(token: string): PresentedAdminKey | undefined {
  const match = KEY_PATTERN.exec(token);
  if (!match) return undefined;
  return { id: match[1] as string, secretHash: hashSecret(match[2] as string) };
}

export function newAdminKey(): { id: string; key: string; secretHash: string } {
  const id = randomBytes(6).toString("hex");
  const secret = randomBytes(32).toString("base64url");
  return { id, key: `${ADMIN_KEY_PREFIX}${id}_${secret}`, secretHash: hashSecret(secret) };
}

export const newAdminId = () => `adm_${randomBytes(6).toString("hex")}`;

function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}
