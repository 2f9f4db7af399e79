/**
 * A chat's caller (admin, wallet, agent key or anonymous client) and the client address it is
 * known by: normalised, hashed, never stored as it is. This index is the folder's public surface:
 * import the folder, not its files (docs/architecture.md).
 */

export type { Caller } from "./caller";
export {
  callerId,
  callerOf,
  clientAddress,
  clientOf,
  hashAddress,
  normalizeAddress,
} from "./caller";
