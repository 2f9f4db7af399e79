import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

/**
 * Secrets the service must read back, sealed with AES-256-GCM under keys derived from the admin
 * key, one per purpose. Additional data binds each value to what it belongs to, so that a stored
 * value moved elsewhere does not open, even for someone who can write the database.
 */

const VERSION = "v1";

export function sealingKey(adminKey: string, purpose: string): Uint8Array {
  return createHash("sha256").update(`agent-service ${purpose}\0${adminKey}`).digest();
}

/** `value` sealed under `key`, bound to `boundTo`: `v1.<iv>.<ciphertext and tag>`. */
export function seal(key: Uint8Array, value: string, boundTo: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(boundTo));
  const sealed = Buffer.concat([cipher.update(value, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return `${VERSION}.${iv.toString("base64url")}.${sealed.toString("base64url")}`;
}

/** The value, or undefined when it does not open (another key, bound to another thing, damaged). */
export function unseal(key: Uint8Array, stored: string, boundTo: string): string | undefined {
  const [version, iv, sealed] = stored.split(".");
  if (version !== VERSION || !iv || !sealed) return undefined;
  try {
    const bytes = Buffer.from(sealed, "base64url");
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(boundTo));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([
      decipher.update(bytes.subarray(0, bytes.length - 16)),
      decipher.final(),
    ]).toString("utf8");
  } catch {
    return undefined;
  }
}
