// The request log (GET /requests): written in batches off the chat's path, listed, purged.

export { requestBreakdown } from "./breakdown";
export { listRequests, purgeOldRequests } from "./listing";
export {
  MAX_BUFFERED,
  type RequestEntry,
  RequestLog,
  recordRequest,
  requestLogOf,
} from "./recorder";
export * from "./schema";
export * from "./view";
