import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ToolsConfig } from "@/server/config";
import { hostAllowed } from "./hosts";

/** How a request of the MCP client is bounded: in time, in hosts, in size. */

/** The most a server may send in one response, whatever MCP_RESULT_MAX_CHARS keeps of it. */
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** A tool call that ran past MCP_TOOL_TIMEOUT_MS (connecting included). */
export class ToolTimeoutError extends Error {
  override name = "ToolTimeoutError";
}

/** A request the allowed-hosts rule or the size cap stopped; the server saw nothing of it. */
export class ToolRequestRefused extends Error {
  override name = "ToolRequestRefused";
}

/** A connection failure (refused, reset, DNS) or a closed transport: the session is not usable. */
export function isBroken(error: unknown): boolean {
  if (error instanceof ToolRequestRefused) return false;
  const cause = (error as { cause?: { code?: unknown } })?.cause;
  const code = typeof cause?.code === "string" ? cause.code : "";
  return (
    /^(ECONN|ENOTFOUND|EAI_AGAIN|EPIPE|UND_ERR)/.test(code) ||
    (error instanceof TypeError && /fetch failed/.test(error.message)) ||
    /Connection closed|Not connected/.test((error as Error)?.message ?? "")
  );
}

/**
 * A call's bound: MCP_TOOL_TIMEOUT_MS, or sooner when the caller's signal aborts. A timer and
 * a listener removed at the end rather than AbortSignal.timeout/any, as for model calls
 * (server/model-call/deadline.ts): nothing of a finished call is kept alive.
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
    /** `promise`, or the abort's reason as soon as the bound ends. */
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
 * The client's fetch: every request (redirects the client follows included) goes only to an
 * http(s) URL on a host MCP_ALLOWED_HOSTS permits, and no response may be larger than
 * MAX_RESPONSE_BYTES (a hostile server cannot fill our memory).
 */
export function guardedFetch(config: ToolsConfig): FetchLike {
  return async (input, init) => {
    const url = new URL(input instanceof URL ? input.href : String(input));
    if (
      (url.protocol !== "http:" && url.protocol !== "https:") ||
      !hostAllowed(url, config.allowedHosts)
    )
      throw new ToolRequestRefused(`MCP_ALLOWED_HOSTS does not permit host '${url.host}'.`);
    // Never followed by fetch itself, where no hop could be checked: the SDK follows a
    // same-origin redirect by calling this again, and any other is refused.
    const response = await fetch(url, { ...init, redirect: "manual" });
    if (!response.body || [101, 204, 205, 304].includes(response.status)) return response;
    let bytes = 0;
    const capped = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          bytes += chunk.byteLength;
          if (bytes > MAX_RESPONSE_BYTES)
            controller.error(
              new ToolRequestRefused(`The MCP server sent more than ${MAX_RESPONSE_BYTES} bytes.`),
            );
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(capped, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
