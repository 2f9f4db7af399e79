import { seal, sealingKey, unseal } from "@/server/kit/secret-box";

/**
 * Secret header values of MCP servers (an API key, a bearer token) are kept encrypted
 * (server/kit/secret-box.ts), under a key derived from the admin key as the service's other keys
 * are (server/callers/caller.ts). Each value is bound to the origin it was given for and to its
 * header name, so a stored value cannot be sent to another server by moving it, even by someone
 * who can write the database. If the admin key changes, stored values can no longer be read and
 * must be given again.
 */

/** The key that encrypts header values, from the admin key. */
export function headerSecretKey(adminKey: string): Uint8Array {
  return sealingKey(adminKey, "mcp headers v1");
}

const boundTo = (origin: string, header: string) =>
  `mcp-header\0${origin}\0${header.toLowerCase()}`;

export function encryptHeader(
  key: Uint8Array,
  value: string,
  { origin, header }: { origin: string; header: string },
): string {
  return seal(key, value, boundTo(origin, header));
}

/** The value, or undefined when it cannot be read (another key, another origin, damaged). */
export function decryptHeader(
  key: Uint8Array,
  stored: string,
  { origin, header }: { origin: string; header: string },
): string | undefined {
  return unseal(key, stored, boundTo(origin, header));
}

/**
 * What may be shown of a secret: its last four characters, and only when it is long enough
 * (20 characters or more) that those give little away, as API dashboards show keys. Characters
 * are code points: four UTF-16 units could cut a pair in half, which jsonb cannot store.
 */
export function secretHint(value: string): string | null {
  return value.length >= 20 ? `…${[...value].slice(-4).join("")}` : null;
}
