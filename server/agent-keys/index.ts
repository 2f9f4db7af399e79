// Agent keys: their format, creation (the secret shown once), listing and revocation.

export type { PresentedKey } from "./format";
export { AGENT_KEY_PREFIX, newAgentKey, parseAgentKey, presentedKey } from "./format";
export * from "./keys";
export * from "./schema";
