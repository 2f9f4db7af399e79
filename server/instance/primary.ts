import cluster, { type Worker } from "node:cluster";
import { createServer } from "node:net";
import type { Config } from "../frame/config.ts";
import {
  isMetricsMessage,
  log,
  type MetricsCollected,
  type MetricsReply,
  WORKER_SLOT_VARIABLE,
} from "../observability/index.ts";

/**
 * The primary of an instance's `node:cluster` web workers; it serves and accepts nothing itself
 * (each worker listens on the port with SO_REUSEPORT, serve.ts). It forks one
 * worker per slot (slot 1 runs the scheduler and housekeeping, server/frame/start-up.ts), restarts a
 * worker that dies with a doubling back-off while restarts keep dying young, so that a crash loop
 * does not spin, passes SIGTERM on and waits for the workers to drain, and answers a worker's
 * GET /metrics with every worker's metrics, aggregated.
 */

const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 30_000;
/** A worker that lived this long was healthy: the next death of its slot restarts at once. */
const HEALTHY_AFTER_MS = 30_000;
/** How long the primary waits for one worker's metrics before it answers without it. */
const COLLECT_TIMEOUT_MS = 3000;

type Slot = { worker?: Worker; startedAt: number; backoffMs: number; timer?: NodeJS.Timeout };

export async function runPrimary(config: Config): Promise<void> {
  await claimPort(config);
  const slots = new Map<number, Slot>();
  let stopping = false;

  const fork = (slot: number) => {
    const state = slots.get(slot) ?? { startedAt: 0, backoffMs: 0 };
    state.timer = undefined;
    state.startedAt = Date.now();
    state.worker = cluster.fork({ [WORKER_SLOT_VARIABLE]: String(slot) });
    slots.set(slot, state);
  };

  cluster.on("exit", (worker, code, signal) => {
    const slot = [...slots].find(([, state]) => state.worker === worker)?.[0];
    if (slot === undefined) return;
    const state = slots.get(slot) as Slot;
    state.worker = undefined;
    if (stopping) {
      if ([...slots.values()].every((s) => s.worker === undefined)) finish();
      return;
    }
    const lived = Date.now() - state.startedAt;
    state.backoffMs =
      lived >= HEALTHY_AFTER_MS
        ? 0
        : Math.min(MAX_BACKOFF_MS, Math.max(FIRST_BACKOFF_MS, state.backoffMs * 2));
    log.warn(
      { worker: slot, code, signal, lived_ms: lived, restart_in_ms: state.backoffMs },
      `Agent Service: web worker ${slot} exited (${signal ?? `code ${code}`}) after ${Math.round(lived / 1000)} s; starting another in ${state.backoffMs} ms.`,
    );
    state.timer = setTimeout(() => fork(slot), state.backoffMs);
  });

  cluster.on("message", (worker, message: unknown) => {
    if (!isMetricsMessage(message) || message.type !== "agent-service:metrics-request") return;
    aggregateMetrics(slots).then(
      (text) => reply(worker, { type: "agent-service:metrics-reply", id: message.id, text }),
      (error: unknown) =>
        reply(worker, {
          type: "agent-service:metrics-reply",
          id: message.id,
          error: (error as Error).message,
        }),
    );
  });

  let exitTimer: NodeJS.Timeout | undefined;
  const finish = () => {
    clearTimeout(exitTimer);
    log.info("Agent Service: every web worker has stopped.");
    log.flush(() => process.exit(0));
  };
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, `Agent Service: ${signal} received; stopping the web workers.`);
    for (const state of slots.values()) {
      clearTimeout(state.timer);
      state.worker?.process.kill("SIGTERM");
    }
    if ([...slots.values()].every((s) => s.worker === undefined)) return finish();
    exitTimer = setTimeout(() => {
      log.warn("Agent Service: web workers still running after the grace period; killing them.");
      for (const state of slots.values()) state.worker?.process.kill("SIGKILL");
    }, config.scheduler.shutdownGraceMs + 5000);
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);

  log.info(
    { workers: config.webConcurrency },
    `Agent Service: starting ${config.webConcurrency} web workers.`,
  );
  for (let slot = 1; slot <= config.webConcurrency; slot++) fork(slot);
}

function reply(worker: Worker, message: MetricsReply): void {
  if (worker.isConnected()) worker.send(message);
}

let collections = 0;

/**
 * Every live worker's metrics, aggregated as prom-client's cluster support does; a worker that
 * does not answer in time is left out and named in the log.
 */
async function aggregateMetrics(slots: Map<number, Slot>): Promise<string> {
  const { AggregatorRegistry } = await import("prom-client");
  const id = ++collections;
  const workers = [...slots.values()].flatMap((s) => (s.worker?.isConnected() ? [s.worker] : []));
  const answers = await Promise.all(workers.map((worker) => collect(worker, id)));
  const found = answers.filter((metrics): metrics is unknown[] => metrics !== undefined);
  if (found.length === 0) throw new Error("No web worker answered with its metrics.");
  // biome-ignore lint/suspicious/noExplicitAny: prom-client types the JSON as its own MetricObject[]
  return AggregatorRegistry.aggregate(found as any).metrics();
}

function collect(worker: Worker, id: number): Promise<unknown[] | undefined> {
  return new Promise((resolve) => {
    const onMessage = (message: unknown) => {
      if (!isMetricsMessage(message) || message.type !== "agent-service:metrics-collected") return;
      if ((message as MetricsCollected).id !== id) return;
      done((message as MetricsCollected).metrics);
    };
    const timer = setTimeout(() => {
      log.warn({ worker_pid: worker.process.pid }, "A web worker sent no metrics in time.");
      done(undefined);
    }, COLLECT_TIMEOUT_MS);
    const done = (metrics: unknown[] | undefined) => {
      clearTimeout(timer);
      worker.off("message", onMessage);
      resolve(metrics);
    };
    worker.on("message", onMessage);
    worker.send({ type: "agent-service:metrics-collect", id });
  });
}

/**
 * Fails the start when the port is taken. The workers bind with SO_REUSEPORT, which would share
 * the port with another such process of this user instead of failing.
 */
async function claimPort(config: Config): Promise<void> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once("error", reject);
    probe.listen({ port: config.port, host: config.host, exclusive: true }, resolve);
  });
  await new Promise((resolve) => probe.close(resolve));
}
