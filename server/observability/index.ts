// Loaded unbundled by the server entry, so its imports name their files with the extension.
export { logRequest } from "./access-log.ts";
export {
  isMetricsMessage,
  type MetricsCollected,
  type MetricsReply,
  type MetricsRequest,
} from "./cluster-metrics.ts";
export { log } from "./log.ts";
export { BATCH_MS, logStreams } from "./log-stream.ts";
export type { ChatOutcome } from "./metrics.ts";
export { countChat, MetricsUnavailableError, metrics, metricsText } from "./metrics.ts";
export { requestIdFrom, requestIdOf } from "./request-id.ts";
export { runsInstanceWork, WORKER_SLOT_VARIABLE, workerSlot } from "./worker.ts";
