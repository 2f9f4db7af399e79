/**
 * Agent keys: their format (ak_<id>_<secret>), creation (the secret shown once), listing and
 * revocation. This index is the folder's public surface: import the folder, not its files
 * (docs/architecture.md).
 */

export type { PresentedKey } from "./format";
export { AGENT_KEY_PREFIX, newAgentKey, parseAgentKey, presentedKey } from "./format";
export { createKey, listKeys, revokeKey } from "./keys";
export * from "./schema";
