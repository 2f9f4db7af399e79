// Loaded unbundled by the server entry, so its imports name their files with the extension.
export { logRequest } from "./access-log.ts";
export {
  isMetricsMessage,
  type MetricsCollected,
  type MetricsReply,
  type MetricsRequest,
} from "./cluster-metrics.ts";
export { GEN_AI, GEN_AI_OPERATIONS } from "./gen-ai.ts";
export { log } from "./log.ts";
export { BATCH_MS, logStreams } from "./log-stream.ts";
export type { ChatOutcome } from "./metrics.ts";
export { countChat, MetricsUnavailableError, metrics, metricsText } from "./metrics.ts";
export { requestIdFrom, requestIdOf } from "./request-id.ts";
export {
  activeContext,
  type Context,
  extractTraceContext,
  failSpan,
  inSpan,
  inSpanSteps,
  SpanKind,
  startSpan,
  startTracing,
  stopTracing,
  traceHeaders,
  tracingOn,
  withContext,
} from "./tracing.ts";
export { runsInstanceWork, WORKER_SLOT_VARIABLE, workerSlot } from "./worker.ts";
