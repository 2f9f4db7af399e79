/**
 * The request log (GET /requests): one row per chat request that reached the chat engine,
 * written in batches off the chat's path, listed newest first with filters, deleted after
 * REQUEST_LOG_DAYS. This index is the folder's public surface: import the folder, not its files
 * (docs/architecture.md).
 */

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
