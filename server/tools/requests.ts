import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { Agent, type RequestInit as UndiciRequestInit, fetch as undiciFetch } from "undici";
import type { ToolsConfig } from "@/server/frame/config";
import type { HostRule } from "@/server/kit/allowed-hosts";
import { guardedLookup, resolvedProblem, urlProblem } from "@/server/kit/outgoing";
import { traceHeaders } from "@/server/observability";
import { REFUSED_ERROR, TIMEOUT_ERROR } from "./failures";

/** The setting that lists the non-public hosts MCP servers may also be on. */
const SETTING = "MCP_ALLOWED_HOSTS";

/** The most a server may send in one response, whatever MCP_RESULT_MAX_CHARS keeps of it. */
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** A tool call past MCP_TOOL_TIMEOUT_MS; told apart by name (failures.ts), as the refusal is. */
export class ToolTimeoutError extends Error {
  override name = TIMEOUT_ERROR;
}

/**
 * A request the outgoing rule, the size cap or an unusable configuration stopped. Its
 * message follows the server's name: "MCP server 'x' <message>".
 */
export class ToolRequestRefused extends Error {
  override name = REFUSED_ERROR;
}

export function notCalled(problem: string): ToolRequestRefused {
  return new ToolRequestRefused(`was not called: ${problem}`);
}

/**
 * A call's bound: the timeout or the caller's signal. A timer and a listener removed at the end,
 * not AbortSignal.timeout/any, so nothing of a finished call is kept (model-call/deadline.ts).
 */
export function callBound(timeoutMs: number, outer: AbortSignal) {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new ToolTimeoutError("The tool call timed out."));
  }, timeoutMs);
  timer.unref();
  const onAbort = () => controller.abort(outer.reason);
  if (outer.aborted) onAbort();
  else outer.addEventListener("abort", onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    race<T>(promise: Promise<T>): Promise<T> {
      if (controller.signal.aborted) return Promise.reject(controller.signal.reason);
      return new Promise<T>((resolve, reject) => {
        const stop = () => reject(controller.signal.reason);
        controller.signal.addEventListener("abort", stop, { once: true });
        promise.then(resolve, reject).finally(() => {
          controller.signal.removeEventListener("abort", stop);
        });
      });
    },
    clear() {
      clearTimeout(timer);
      outer.removeEventListener("abort", onAbort);
    },
  };
}

/**
 * Why an MCP server may not be at `url`, judged from the URL alone (its scheme, its literal
 * address or `localhost` name); undefined when it may. A name's DNS answer is judged when
 * connecting.
 */
export function serverUrlProblem(url: URL, rules: readonly HostRule[]): string | undefined {
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must be an http(s) URL";
  return urlProblem(url, rules, SETTING);
}

export type GuardedFetch = FetchLike & {
  /** Closes the connections it opened; for when its session is closed. */
  close(): Promise<void>;
};

/**
 * The client's fetch: every request (redirects included) goes only where the outgoing rule
 * permits, the URL judged before it is sent and a name's addresses when connecting, and no
 * response may exceed MAX_RESPONSE_BYTES. `onOversize` hears of a response cut there, whose
 * request would otherwise wait for the timeout (the SDK only logs it).
 */
export function guardedFetch(
  config: ToolsConfig,
  onOversize: (refusal: ToolRequestRefused) => void = () => {},
): GuardedFetch {
  // undici's own fetch, so that its connections go through an Agent of the same undici; one
  // per origin, whose DNS lookups answer only the addresses the rule permits for it.
  const agents = new Map<string, Agent>();
  const agentFor = (url: URL) => {
    let agent = agents.get(url.origin);
    if (!agent) {
      agent = new Agent({ connect: { lookup: guardedLookup(url, config.allowedHosts) } });
      agents.set(url.origin, agent);
    }
    return agent;
  };
  const guarded: FetchLike = async (input, init) => {
    const url = new URL(input instanceof URL ? input.href : String(input));
    const problem = serverUrlProblem(url, config.allowedHosts);
    if (problem) throw notCalled(`its URL ${problem}.`);
    let response: Awaited<ReturnType<typeof undiciFetch>>;
    try {
      // Never followed by fetch itself, where no hop could be checked: the SDK follows a
      // same-origin redirect by calling this again, and any other is refused.
      response = await undiciFetch(url, {
        ...(init as UndiciRequestInit),
        ...withTraceContext(init?.headers),
        redirect: "manual",
        dispatcher: agentFor(url),
      });
    } catch (error) {
      const refused = resolvedProblem(error, SETTING);
      if (refused) throw notCalled(`its host ${refused}.`);
      throw error;
    }
    const head = {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers as unknown as Headers,
    };
    if (!response.body || [204, 205, 304].includes(response.status))
      return new Response(null, head);
    const oversize = () =>
      new ToolRequestRefused(
        `sent more than ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB in one response, which was not read.`,
      );
    // Said too long by its own header: refused before a byte of it is read, so that the refusal
    // never waits on reading megabytes (which, on a busy machine, could outlast the timeout).
    if (Number(response.headers.get("content-length")) > MAX_RESPONSE_BYTES) {
      await response.body.cancel().catch(() => {});
      const refusal = oversize();
      onOversize(refusal);
      throw refusal;
    }
    let bytes = 0;
    const capped = (response.body as ReadableStream<Uint8Array>).pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          bytes += chunk.byteLength;
          if (bytes <= MAX_RESPONSE_BYTES) {
            controller.enqueue(chunk);
            return;
          }
          const refusal = oversize();
          controller.error(refusal);
          onOversize(refusal);
        },
      }),
    );
    return new Response(capped, head);
  };
  return Object.assign(guarded, {
    async close() {
      const open = [...agents.values()];
      agents.clear();
      await Promise.all(open.map((agent) => agent.destroy().catch(() => {})));
    },
  });
}

/** The request's headers with the tool call's `traceparent`, when tracing is on; else nothing. */
function withTraceContext(given: HeadersInit | undefined): { headers?: Headers } {
  const trace = traceHeaders();
  if (!trace) return {};
  const headers = new Headers(given);
  for (const [name, value] of Object.entries(trace)) headers.set(name, value);
  return { headers };
}
