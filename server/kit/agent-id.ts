import { z } from "zod";
import { NUL_RULE, withoutNul } from "@/server/kit/text";

// Agent IDs: format, reserved IDs and schemas. Every domain that names an agent uses these, and
// the error mapping tells an agent ID's problem by its rule, so they sit below all of them.

export const AID_PATTERN = /^[a-z][a-z0-9-]*$/;
export const AID_MIN_LENGTH = 2;
export const AID_MAX_LENGTH = 67;

/** Agent IDs that would collide with the service's own top-level paths, now or later. */
export const RESERVED_AIDS: ReadonlySet<string> = new Set([
  "admin",
  "admins",
  "agents",
  "api",
  "assets",
  "audit",
  "auth",
  "chat",
  "dashboard",
  "docs",
  "favicon",
  "health",
  "login",
  "logout",
  "metrics",
  "nonce",
  "oidc",
  "openapi",
  "prices",
  "problems",
  "public",
  "requests",
  "robots",
  "signin",
  "sign-in",
  "signout",
  "sign-out",
  "sitemap",
  "static",
  "status",
  "usage",
  "v1",
  "v2",
  "v3",
  "webhooks",
  "well-known",
]);

export const AID_RULE = `an agent ID is ${AID_MIN_LENGTH} to ${AID_MAX_LENGTH} characters: a lowercase letter, then lowercase letters, digits or hyphens`;
const RESERVED_RULE = " is reserved for the service's own paths";

/**
 * Whether a field's problem is that it breaks the agent ID rule (aidSchema). `aid` is always an
 * agent's ID, but `id` is one only in an agent's body, where it is the alias of `aid`: elsewhere
 * it is a deployment's or a key's, whose problems are no "Invalid agent ID format".
 */
export function breaksAidRule(detail: string): boolean {
  return detail.includes(AID_RULE) || detail.endsWith(RESERVED_RULE);
}

/** An aid to look up: a malformed or reserved one is simply not found (404), not a 400. */
export const lookupAidSchema = z
  .string()
  .min(1)
  .max(AID_MAX_LENGTH * 4)
  .refine(withoutNul, NUL_RULE)
  .meta({ description: "The agent's ID (an unknown or malformed one is simply not found)." });

export const aidInputSchema = z.strictObject({ aid: lookupAidSchema });

export const aidSchema = z
  .string({ error: `must be a string; ${AID_RULE}` })
  .min(AID_MIN_LENGTH, AID_RULE)
  .max(AID_MAX_LENGTH, AID_RULE)
  .regex(AID_PATTERN, AID_RULE)
  .refine((aid) => !RESERVED_AIDS.has(aid), {
    error: (issue) => `'${String(issue.input)}'${RESERVED_RULE}`,
  })
  .meta({ description: AID_RULE, examples: ["support-bot"] });
