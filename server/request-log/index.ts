// The request log (GET /requests): written in batches off the chat's path (refusals naming no
// agent sampled per client), listed, summed for the breakdown, purged.

export { breakdownStatement, requestBreakdown } from "./breakdown";
export { withCustomPlans } from "./custom-plans";
export { listRequests, purgeOldRequests, requestsPage } from "./listing";
export {
  EXACT_OVERALL,
  EXACT_PER_CLIENT,
  MAX_BUFFERED,
  type RequestEntry,
  RequestLog,
  recordRequest,
  requestLogOf,
} from "./recorder";
export * from "./schema";
export * from "./view";
