// A chat's caller and the client address it is known by: normalised, hashed, never stored as is.

export type { Caller } from "./caller";
export {
  callerId,
  callerOf,
  callerScope,
  clientAddress,
  clientOf,
  hashAddress,
  normalizeAddress,
} from "./caller";
