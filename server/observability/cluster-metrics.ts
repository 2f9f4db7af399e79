// The cluster IPC messages that answer GET /metrics for the whole instance. Imported by the server
// entry, which Node.js runs unbundled: no imports.

/** A worker asks the primary for the whole instance's metrics (GET /metrics on that worker). */
export type MetricsRequest = { type: "agent-service:metrics-request"; id: number };
/** The primary's answer: the aggregated exposition text, or why there is none. */
export type MetricsReply = {
  type: "agent-service:metrics-reply";
  id: number;
  text?: string;
  error?: string;
};
/** The primary asks each worker for its own metrics, as prom-client's JSON. */
export type MetricsCollect = { type: "agent-service:metrics-collect"; id: number };
export type MetricsCollected = {
  type: "agent-service:metrics-collected";
  id: number;
  metrics: unknown[];
};

export type MetricsMessage = MetricsRequest | MetricsReply | MetricsCollect | MetricsCollected;

export function isMetricsMessage(value: unknown): value is MetricsMessage {
  const type = (value as { type?: unknown } | null)?.type;
  return typeof type === "string" && type.startsWith("agent-service:metrics-");
}
