import { randomBytes } from "node:crypto";
import { seal, sealingKey, unseal } from "@/server/kit/secret-box";

/**
 * Endpoints' signing secrets in Standard Webhooks' form (`whsec_` and the base64 of the HMAC key's
 * bytes), shown once and stored sealed under a key derived from the admin key and bound to the
 * endpoint's id, so that a sealed secret moved to another endpoint does not open. A new admin key
 * makes deliveries fail, saying so, until the secret is rotated.
 */

const SECRET_BYTES = 32;

export function webhookSecretKey(adminKey: string): Uint8Array {
  return sealingKey(adminKey, "webhook secrets v1");
}

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
