import client, { type Counter, type Gauge, type Histogram, type Registry } from "prom-client";
import { isMetricsMessage, type MetricsCollected, type MetricsRequest } from "./cluster-metrics.ts";
import { workerSlot } from "./worker.ts";

/**
 * How often the event loop's delay is sampled, by our histogram's timer and by prom-client's
 * monitor: each sample wakes an idle process, so enough for a p99 and no more.
 */
const LOOP_SAMPLE_MS = 100;

// Prometheus metrics. Labels are bounded (outcomes, limits, statuses); an agent's aid only with
// METRICS_PER_AGENT=true. Gauges of what is in use are read when scraped, from what holds it.

export type ChatOutcome =
  | "ok"
  | "quota"
  | "rate"
  | "not_found"
  | "paused"
  | "unauthorized"
  | "provider_error"
  | "timeout"
  | "overload"
  | "client_closed"
  | "cancelled"
  | "unavailable"
  | "error";

type Metrics = {
  registry: Registry;
  chats: Counter<"outcome" | "via" | "aid">;
  refusals: Counter<"kind" | "limit">;
  modelCall: Histogram<"stream">;
  firstToken: Histogram;
  tokens: Counter<"direction">;
  endpointAttempts: Counter<"endpoint" | "outcome">;
  toolCalls: Histogram<"outcome">;
  runs: Counter<"outcome">;
  schedulerLag: Histogram;
  dueAgents: Gauge;
  deploymentChanges: Counter<"from" | "to">;
  webhookAttempts: Counter<"result">;
  requestLogDropped: Counter<"reason">;
  /** Set once the services exist: what the in-use gauges read. */
  sources: {
    slotsInUse?: () => number;
    dbConnections?: () => Promise<Record<string, number>>;
  };
};

function createMetrics(): Metrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({
    register: registry,
    eventLoopMonitoringPrecision: LOOP_SAMPLE_MS,
  });
  const sources: Metrics["sources"] = {};
  if (inCluster()) answerCollections(registry);
  const seconds = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60];
  new client.Gauge({
    name: "agent_model_slots_in_use",
    help: "Model calls in flight in this process (of LLM_MAX_CONCURRENCY).",
    registers: [registry],
    collect() {
      this.set(sources.slotsInUse?.() ?? 0);
    },
  });
  new client.Gauge({
    name: "agent_db_connections",
    help: "This instance's PostgreSQL connections by state (active = in use), from pg_stat_activity.",
    labelNames: ["state"],
    registers: [registry],
    // Every web worker reads the same view: one reading, not their sum.
    aggregator: "max",
    async collect() {
      this.reset();
      const byState = (await sources.dbConnections?.().catch(() => undefined)) ?? {};
      for (const [state, count] of Object.entries(byState)) this.set({ state }, count);
    },
  });
  sampleEventLoopDelay(registry);
  return {
    registry,
    sources,
    chats: new client.Counter({
      name: "agent_chat_requests_total",
      help: "Chat requests by outcome and by the way they came in.",
      labelNames: ["outcome", "via", "aid"],
      registers: [registry],
    }),
    refusals: new client.Counter({
      name: "agent_chat_refusals_total",
      help: "Chats refused by a quota or a rate limit, by the limit.",
      labelNames: ["kind", "limit"],
      registers: [registry],
    }),
    modelCall: new client.Histogram({
      name: "agent_model_call_duration_seconds",
      help: "Model calls, from the request to the last byte of the reply.",
      labelNames: ["stream"],
      buckets: seconds,
      registers: [registry],
    }),
    firstToken: new client.Histogram({
      name: "agent_model_time_to_first_token_seconds",
      help: "Streamed model calls: from the request to the first text.",
      buckets: seconds,
      registers: [registry],
    }),
    endpointAttempts: new client.Counter({
      name: "agent_model_endpoint_attempts_total",
      help: "Calls of agents' model endpoints, by the endpoint's name: answered, failed (the next was tried), or skipped (its circuit open).",
      labelNames: ["endpoint", "outcome"],
      registers: [registry],
    }),
    tokens: new client.Counter({
      name: "agent_model_tokens_total",
      help: "Tokens of delivered replies and runs (reported by the provider, or estimated).",
      labelNames: ["direction"],
      registers: [registry],
    }),
    toolCalls: new client.Histogram({
      name: "agent_tool_call_duration_seconds",
      help: "Tool calls of chats and runs by outcome: ok, error (the tool failed or answered a JSON-RPC error), timeout, unreachable, refused (not called, or its answer was over 4 MiB).",
      labelNames: ["outcome"],
      buckets: seconds,
      registers: [registry],
    }),
    runs: new client.Counter({
      name: "agent_autonomous_runs_total",
      help: "Autonomous runs by outcome.",
      labelNames: ["outcome"],
      registers: [registry],
    }),
    schedulerLag: new client.Histogram({
      name: "agent_scheduler_lag_seconds",
      help: "How late autonomous runs start after they are due.",
      buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 300],
      registers: [registry],
    }),
    dueAgents: new client.Gauge({
      name: "agent_scheduler_due_agents",
      help: "Agents due at this instance's last claim (runs it claimed, and skipped).",
      registers: [registry],
    }),
    deploymentChanges: new client.Counter({
      name: "agent_deployment_status_changes_total",
      help: "Deployment status changes, by from and to.",
      labelNames: ["from", "to"],
      registers: [registry],
    }),
    webhookAttempts: new client.Counter({
      name: "agent_webhook_attempts_total",
      help: "Webhook delivery attempts by result: delivered, retrying (failed, tried again later), failed (failed, given up).",
      labelNames: ["result"],
      registers: [registry],
    }),
    requestLogDropped: new client.Counter({
      name: "agent_request_log_dropped_total",
      help: "Request log rows never written, by reason: full (the process's buffer was at its bound, the database not taking rows) or refused (the database refused the batch).",
      labelNames: ["reason"],
      registers: [registry],
    }),
  };
}

// One registry per process, though Next.js may load this module in more than one chunk.
const global = globalThis as unknown as { agentServiceMetrics?: Metrics };
if (!global.agentServiceMetrics) global.agentServiceMetrics = createMetrics();
export const metrics: Metrics = global.agentServiceMetrics;

const perAgent = () => process.env.METRICS_PER_AGENT === "true";

export function countChat(outcome: ChatOutcome, via: string, aid: string): void {
  metrics.chats.inc(perAgent() ? { outcome, via, aid } : { outcome, via });
}

/** The whole instance's metrics, every web worker's together, so one scrape counts every chat. */
export async function metricsText(): Promise<{ contentType: string; body: string }> {
  const body = inCluster() ? await fromPrimary() : await metrics.registry.metrics();
  return { contentType: metrics.registry.contentType, body };
}

/** A web worker of a cluster: its primary holds the other workers' metrics. */
function inCluster(): boolean {
  return workerSlot() !== undefined && typeof process.send === "function";
}

function answerCollections(registry: Registry): void {
  process.on("message", (message: unknown) => {
    if (!isMetricsMessage(message) || message.type !== "agent-service:metrics-collect") return;
    registry.getMetricsAsJSON().then((json) => {
      const answer: MetricsCollected = {
        type: "agent-service:metrics-collected",
        id: message.id,
        metrics: json,
      };
      process.send?.(answer);
    });
  });
}

/** The primary did not gather the instance's metrics (GET /metrics answers 503). */
export class MetricsUnavailableError extends Error {
  override name = "MetricsUnavailableError";
}

const PRIMARY_TIMEOUT_MS = 10_000;
let requests = 0;

function fromPrimary(): Promise<string> {
  const id = ++requests;
  return new Promise((resolve, reject) => {
    const unavailable = (why: string) =>
      new MetricsUnavailableError(
        `The instance's metrics could not be gathered from its web workers (${why}); try again.`,
      );
    const onMessage = (message: unknown) => {
      if (!isMetricsMessage(message) || message.type !== "agent-service:metrics-reply") return;
      if (message.id !== id) return;
      done();
      if (message.text !== undefined) resolve(message.text);
      else reject(unavailable(message.error ?? "no answer"));
    };
    const timer = setTimeout(() => {
      done();
      reject(unavailable("the primary did not answer"));
    }, PRIMARY_TIMEOUT_MS);
    const done = () => {
      clearTimeout(timer);
      process.off("message", onMessage);
    };
    process.on("message", onMessage);
    const request: MetricsRequest = { type: "agent-service:metrics-request", id };
    process.send?.(request);
  });
}

/**
 * How late a timer due every LOOP_SAMPLE_MS fires: the wait a request arriving then would have
 * had before any of its code ran. A histogram (prom-client's default `nodejs_eventloop_lag_*` are
 * gauges of its own window), so that an instance's workers sum and a p99 over any range is read.
 */
function sampleEventLoopDelay(registry: Registry): void {
  const delay = new client.Histogram({
    name: "agent_event_loop_delay_seconds",
    help: `How late a timer due every ${LOOP_SAMPLE_MS} ms fired: the event loop's delay.`,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  let due = performance.now() + LOOP_SAMPLE_MS;
  const timer = setInterval(() => {
    const now = performance.now();
    delay.observe(Math.max(0, now - due) / 1000);
    due = now + LOOP_SAMPLE_MS;
  }, LOOP_SAMPLE_MS);
  timer.unref();
}
