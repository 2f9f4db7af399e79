import { setTimeout as sleep } from "node:timers/promises";
import type { Db } from "@/db/client";
import type { StoredModelEndpoint } from "@/db/schema";
import type { LlmConfig } from "@/server/frame/config";
import { AppError } from "@/server/frame/errors";
import type { Clock } from "@/server/kit/clock";
import type { Connections } from "@/server/kit/connections";
import { resolvedProblem, urlProblem } from "@/server/kit/outgoing";
import { log, metrics } from "@/server/observability";
import {
  isProviderHttpError,
  isRetryable,
  type ModelChunk,
  type ModelProvider,
  type ModelRequest,
  openAiCompatibleProvider,
  retryDelay,
} from "@/server/providers";
import { Failures, jittered, startAttempt } from "./attempts";
import {
  type Circuit,
  circuitOf,
  circuitState,
  claimProbe,
  readCircuits,
  recordFailure,
  recordSuccess,
} from "./circuits";
import { endpointKey, SETTING } from "./stored";

/**
 * A provider over an agent's model endpoints: each turn asks them in order, and moves to the next
 * on a connection error, a timeout, 429 or 5xx before the first token (a reply not streamed: its
 * whole answer). Each endpoint waits its `timeout_ms`, or an equal share of the time left; the list
 * is tried again up to LLM_MAX_RETRIES times, after a jittered backoff that honours Retry-After,
 * never past the call's deadline. Circuits (./circuits.ts) skip endpoints that keep failing.
 */

export type EndpointsRuntime = {
  connections: Connections;
  /** Opens stored API keys (from the admin key). */
  key: Uint8Array | undefined;
  llm: Pick<LlmConfig, "maxRetries" | "circuitFailures" | "circuitOpenMs" | "allowedHosts">;
};

/** What the first token of one endpoint came with: how to go on, and how to let go. */
type Opened<T> = { value: T; endpoint: StoredModelEndpoint; release: () => void };

const BACKOFF_MS = 500;
/** What a chat's caller is told of an endpoint it may not reach: the details are the admin's (logged). */
const NOT_ALLOWED = "its host is not one MODEL_ALLOWED_HOSTS allows";

export function endpointsProvider(
  runtime: EndpointsRuntime,
  call: { aid: string; endpoints: StoredModelEndpoint[]; db: Db; clock: Clock; deadlineAt: number },
): ModelProvider {
  const { endpoints, db, clock } = call;
  const settings = { failures: runtime.llm.circuitFailures, openMs: runtime.llm.circuitOpenMs };

  async function first<T>(
    request: ModelRequest,
    open: (provider: ModelProvider, request: ModelRequest) => Promise<T>,
  ): Promise<Opened<T>> {
    const failures = new Failures();
    let retryAt: Date | undefined;
    let lastError: unknown;
    for (let round = 0; round <= runtime.llm.maxRetries; round++) {
      const circuits = await readCircuits(db, endpoints).catch(() => new Map<string, Circuit>());
      const now = clock.now();
      const ready: { endpoint: StoredModelEndpoint; probe: boolean }[] = [];
      for (const endpoint of endpoints) {
        const circuit = circuitState(circuitOf(circuits, endpoint), now);
        if (circuit.state !== "skip") ready.push({ endpoint, probe: circuit.state === "probe" });
        else {
          metrics.endpointAttempts.inc({ endpoint: endpoint.name, outcome: "skipped" });
          if (!retryAt || circuit.until < retryAt) retryAt = circuit.until;
        }
      }
      let tried = 0;
      for (const [i, { endpoint, probe }] of ready.entries()) {
        const left = call.deadlineAt - Date.now();
        if (left <= 0) break;
        const last = round === runtime.llm.maxRetries && i === ready.length - 1;
        const waitMs = Math.min(
          endpoint.timeout_ms ?? (last ? left : left / (ready.length - i)),
          left,
        );
        if (probe && !(await claimProbe(db, endpoint, clock.now(), waitMs).catch(() => false))) {
          metrics.endpointAttempts.inc({ endpoint: endpoint.name, outcome: "skipped" });
          continue;
        }
        // Judged again at each call: MODEL_ALLOWED_HOSTS may have changed since it was stored.
        const refused = urlProblem(new URL(endpoint.base_url), runtime.llm.allowedHosts, SETTING);
        if (refused) {
          log.warn(
            { aid: call.aid, endpoint: endpoint.name },
            `model endpoint not called: ${refused}`,
          );
          failures.add(endpoint.name, NOT_ALLOWED);
          continue;
        }
        tried++;
        const attempt = startAttempt(request.signal, waitMs);
        try {
          const provider = providerFor(runtime, endpoint);
          const value = await open(provider, {
            ...request,
            model: endpoint.model,
            signal: attempt.signal,
          });
          attempt.answered();
          metrics.endpointAttempts.inc({ endpoint: endpoint.name, outcome: "answered" });
          if (circuitOf(circuits, endpoint)) void recordSuccess(db, endpoint);
          return { value, endpoint, release: attempt.release };
        } catch (error) {
          attempt.release();
          if (request.signal.aborted) throw error;
          const failure = describe(error, attempt.timedOut(), waitMs);
          if (!failure) throw error;
          metrics.endpointAttempts.inc({ endpoint: endpoint.name, outcome: "failed" });
          failures.add(endpoint.name, failure);
          lastError = error;
          await recordFailure(db, endpoint, clock.now(), settings);
        }
      }
      // Nothing was called this round (circuits open, hosts not allowed): a retry would not be.
      if (tried === 0 && failures.none) throw allOpen(retryAt, clock.now());
      if (tried === 0 || round === runtime.llm.maxRetries) break;
      const wait = jittered(retryDelay(lastError, BACKOFF_MS * 2 ** round));
      if (Date.now() + wait >= call.deadlineAt) break;
      await sleep(wait, undefined, { signal: request.signal });
    }
    throw new AppError(
      "provider_error",
      `Every model endpoint of this agent failed: ${failures.sentence()}.`,
    );
  }

  return {
    name: "openai-compatible",
    async generate(request) {
      const opened = await first(request, (provider, asked) => provider.generate(asked));
      opened.release();
      return { ...opened.value, answeredBy: answeredBy(opened.endpoint) };
    },
    async *stream(request) {
      const opened = await first(request, async (provider, asked) => {
        const chunks = provider.stream(asked)[Symbol.asyncIterator]();
        return { chunks, next: await chunks.next() };
      });
      const { chunks } = opened.value;
      try {
        let next = opened.value.next;
        let chunk: ModelChunk | undefined = {
          ...(next.done ? { text: "" } : next.value),
          answeredBy: answeredBy(opened.endpoint),
        };
        yield chunk;
        while (!next.done) {
          next = await chunks.next();
          chunk = next.done ? undefined : next.value;
          if (chunk) yield chunk;
        }
      } finally {
        await chunks.return?.(undefined);
        opened.release();
      }
    },
  };
}

const answeredBy = (endpoint: StoredModelEndpoint) => ({
  endpoint: endpoint.name,
  model: endpoint.model,
});

function providerFor(runtime: EndpointsRuntime, endpoint: StoredModelEndpoint): ModelProvider {
  const key = endpointKey(endpoint, runtime.key);
  if ("problem" in key)
    throw new AppError("provider_error", `Model endpoint ${endpoint.name}: ${key.problem}.`);
  return openAiCompatibleProvider({
    baseUrl: endpoint.base_url,
    apiKey: key.apiKey,
    // Retries are this provider's: the next endpoint first, then the list again.
    maxRetries: 0,
    dispatcher: runtime.connections.for(new URL(endpoint.base_url)),
  });
}

/** Why an endpoint failed in a way the next may not, in the service's words; else undefined. */
function describe(error: unknown, timedOut: boolean, waitMs: number): string | undefined {
  if (timedOut) return `no first token within ${(waitMs / 1000).toFixed(1)} s`;
  if (resolvedProblem(error, SETTING)) return NOT_ALLOWED;
  if (!isRetryable(error)) return undefined;
  return isProviderHttpError(error) ? `HTTP ${error.status}` : "could not be reached";
}

/** Every endpoint's circuit is open: 503 until the first may be probed. */
function allOpen(retryAt: Date | undefined, now: Date): AppError {
  const inS = Math.max(
    1,
    Math.ceil(((retryAt?.getTime() ?? now.getTime()) - now.getTime()) / 1000),
  );
  return new AppError(
    "service_unavailable",
    `Every model endpoint of this agent has failed repeatedly and is rested for now; try again in ${inS} s.`,
    { retryAfterS: inS },
  );
}
