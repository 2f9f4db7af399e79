import { seal, sealingKey, unseal } from "@/server/kit/secret-box";

/**
 * Secret header values of MCP servers are kept encrypted under a key derived from the admin key,
 * each bound to its origin and header name, so a stored value cannot be moved to another server,
 * even by someone who can write the database. A new admin key makes stored values unreadable.
 */

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
