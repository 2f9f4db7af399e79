/**
 * What the primary and the web workers of one instance say to each other over the cluster's
 * IPC channel (server/instance/primary.ts, server/observability/metrics.ts). Imported by both
 * the entry, which Node.js runs unbundled, and Next.js's bundle: no imports.
 */

/** The environment variable the primary gives each web worker: its slot, 1 to WEB_CONCURRENCY. */
export const WORKER_SLOT_VARIABLE = "AGENT_SERVICE_WORKER";

/**
 * This process's slot among the instance's web workers, or undefined when it is the only
 * process (WEB_CONCURRENCY=1, the embedded database, `npm run worker`).
 */
export function workerSlot(): number | undefined {
  const slot = Number(process.env[WORKER_SLOT_VARIABLE]);
  return Number.isInteger(slot) && slot > 0 ? slot : undefined;
}

/**
 * Whether this process does the instance's once-per-instance work (the scheduler and the
 * housekeeping): the only process, or the worker in slot 1 (a restarted one takes the slot).
 */
export function runsInstanceWork(): boolean {
  const slot = workerSlot();
  return slot === undefined || slot === 1;
}

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

export type InstanceMessage = MetricsRequest | MetricsReply | MetricsCollect | MetricsCollected;

export function isInstanceMessage(value: unknown): value is InstanceMessage {
  const type = (value as { type?: unknown } | null)?.type;
  return typeof type === "string" && type.startsWith("agent-service:metrics-");
}
