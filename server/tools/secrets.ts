import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

/**
 * Secret header values of MCP servers (an API key, a bearer token) are kept encrypted with
 * AES-256-GCM, under a key derived from the admin key as the service's other keys are
 * (server/callers/caller.ts). Each value is bound to the origin it was given for and to its
 * header name (the additional data), so a stored value cannot be sent to another server by
 * moving it, even by someone who can write the database. If the admin key changes, stored
 * values can no longer be read and must be given again.
 */

const VERSION = "v1";

/** The key that encrypts header values, from the admin key. */
export function headerSecretKey(adminKey: string): Uint8Array {
  return createHash("sha256").update(`agent-service mcp headers v1\0${adminKey}`).digest();
}

const additionalData = (origin: string, header: string) =>
  Buffer.from(`mcp-header\0${origin}\0${header.toLowerCase()}`);

export function encryptHeader(
  key: Uint8Array,
  value: string,
  { origin, header }: { origin: string; header: string },
): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(additionalData(origin, header));
  const sealed = Buffer.concat([cipher.update(value, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return `${VERSION}.${iv.toString("base64url")}.${sealed.toString("base64url")}`;
}

/** The value, or undefined when it cannot be read (another key, another origin, damaged). */
export function decryptHeader(
  key: Uint8Array,
  stored: string,
  { origin, header }: { origin: string; header: string },
): string | undefined {
  const [version, iv, sealed] = stored.split(".");
  if (version !== VERSION || !iv || !sealed) return undefined;
  try {
    const bytes = Buffer.from(sealed, "base64url");
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
    decipher.setAAD(additionalData(origin, header));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([
      decipher.update(bytes.subarray(0, bytes.length - 16)),
      decipher.final(),
    ]).toString("utf8");
  } catch {
    return undefined;
  }
}

/**
 * What may be shown of a secret: its last four characters, and only when it is long enough
 * (20 characters or more) that those give little away, as API dashboards show keys. Characters
 * are code points: four UTF-16 units could cut a pair in half, which jsonb cannot store.
 */
export function secretHint(value: string): string | null {
  return value.length >= 20 ? `…${[...value].slice(-4).join("")}` : null;
}
