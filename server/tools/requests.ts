import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ToolsConfig } from "@/server/frame/config";
import { hostAllowed } from "@/server/kit/allowed-hosts";
import { REFUSED_ERROR, TIMEOUT_ERROR } from "./failures";

/** The most a server may send in one response, whatever MCP_RESULT_MAX_CHARS keeps of it. */
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** A tool call past MCP_TOOL_TIMEOUT_MS; told apart by name (failures.ts), as the refusal is. */
export class ToolTimeoutError extends Error {
  override name = TIMEOUT_ERROR;
}

/**
 * A request the allowed-hosts rule, the size cap or an unusable configuration stopped. Its
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
 * The client's fetch: every request (redirects included) goes only to a host MCP_ALLOWED_HOSTS
 * permits, and no response may exceed MAX_RESPONSE_BYTES. `onOversize` hears of a response cut
 * there, whose request would otherwise wait for the timeout (the SDK only logs it).
 */
export function guardedFetch(
  config: ToolsConfig,
  onOversize: (refusal: ToolRequestRefused) => void = () => {},
): FetchLike {
  return async (input, init) => {
    const url = new URL(input instanceof URL ? input.href : String(input));
    if (
      (url.protocol !== "http:" && url.protocol !== "https:") ||
      !hostAllowed(url, config.allowedHosts)
    )
      throw new ToolRequestRefused(
        `was not called: MCP_ALLOWED_HOSTS does not permit host '${url.host}'.`,
      );
    // Never followed by fetch itself, where no hop could be checked: the SDK follows a
    // same-origin redirect by calling this again, and any other is refused.
    const response = await fetch(url, { ...init, redirect: "manual" });
    if (!response.body || [101, 204, 205, 304].includes(response.status)) return response;
    let bytes = 0;
    const capped = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          bytes += chunk.byteLength;
          if (bytes <= MAX_RESPONSE_BYTES) {
            controller.enqueue(chunk);
            return;
          }
          const refusal = new ToolRequestRefused(
            `sent more than ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB in one response, which was not read.`,
          );
          controller.error(refusal);
          onOversize(refusal);
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
