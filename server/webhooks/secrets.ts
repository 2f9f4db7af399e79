import { randomBytes } from "node:crypto";
import { seal, sealingKey, unseal } from "@/server/kit/secret-box";

/**
 * Endpoints' signing secrets: `whsec_` and the base64 of 32 random bytes (Standard Webhooks'
 * form; the HMAC key is those bytes). Shown once when made or rotated, stored only sealed
 * (server/kit/secret-box.ts) under a key derived from the admin key and bound to the endpoint's
 * id, so a sealed secret moved to another endpoint's row does not open. If the admin key
 * changes, stored secrets no longer open: deliveries then fail saying so, until the secret is
 * rotated.
 */

const SECRET_BYTES = 32;

/** The key that seals webhook secrets, from the admin key. */
export function webhookSecretKey(adminKey: string): Uint8Array {
  return sealingKey(adminKey, "webhook secrets v1");
}

/** A new endpoint id: `wh_` and 16 hex digits. */
export function newEndpointId(): string {
  return `wh_${randomBytes(8).toString("hex")}`;
}

/** Whether `id` has an endpoint id's form; any other cannot name one. */
export const isEndpointId = (id: string): boolean => /^wh_[0-9a-f]{16}$/.test(id);

export function newSecret(): string {
  return `whsec_${randomBytes(SECRET_BYTES).toString("base64")}`;
}

const boundTo = (endpointId: string) => `webhook-secret\0${endpointId}`;

export function sealSecret(key: Uint8Array, secret: string, endpointId: string): string {
  return seal(key, secret, boundTo(endpointId));
}

/** The secret, or undefined when it does not open (another admin key, another endpoint). */
export function openSecret(
  key: Uint8Array,
  sealed: string,
  endpointId: string,
): string | undefined {
  return unseal(key, sealed, boundTo(endpointId));
}
