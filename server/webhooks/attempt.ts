import { Webhook } from "standardwebhooks";
import { DecoratorHandler, type Dispatcher, request } from "undici";
import type { HostRule } from "@/server/kit/allowed-hosts";
import type { Connections } from "@/server/kit/connections";
import { resolvedProblem } from "@/server/kit/outgoing";
import { storableText } from "@/server/kit/text";
import { inSpan, SpanKind, traceHeaders, tracingOn } from "@/server/observability";
import { SETTING, urlProblem } from "./target";
import { RESPONSE_EXCERPT_BYTES } from "./view";

/**
 * One attempt to deliver a webhook, signed as Standard Webhooks says, to an address the target
 * rules permit (checked on the addresses actually connected to), bounded in time from when it is
 * sent, following no redirect and reading only the status and first bytes. Nothing else the
 * receiver sends reaches the delivery log: failures are described in the service's own words.
 */

export type AttemptResult = {
  delivered: boolean;
  statusCode: number | null;
  durationMs: number;
  excerpt: string | null;
  error: string | null;
};

export type Message = { url: string; secret: string; webhookId: string; body: string; at: Date };

type AttemptOptions = { connections: Connections; rules: readonly HostRule[]; timeoutMs: number };

/**
 * Sends one message; never throws: every failure is an attempt that failed, saying why. With
 * tracing on, in a span of its own whose `traceparent` goes with it.
 */
export function attemptDelivery(message: Message, options: AttemptOptions): Promise<AttemptResult> {
  if (!tracingOn()) return attempt(message, options);
  const host = new URL(message.url).host;
  return inSpan(
    "webhook.deliver",
    {
      kind: SpanKind.CLIENT,
      attributes: { "server.address": host, "webhook.id": message.webhookId },
    },
    async (span) => {
      const result = await attempt(message, options, traceHeaders());
      if (result.statusCode !== null)
        span?.setAttribute("http.response.status_code", result.statusCode);
      if (!result.delivered)
        span?.setAttribute(
          "error.type",
          result.statusCode === null ? "no_answer" : String(result.statusCode),
        );
      return result;
    },
  );
}

async function attempt(
  message: Message,
  { connections, rules, timeoutMs }: AttemptOptions,
  trace?: Record<string, string>,
): Promise<AttemptResult> {
  const started = performance.now();
  const took = () => Math.round((performance.now() - started) * 10) / 10;
  const failed = (error: string, statusCode: number | null = null, excerpt: string | null = null) =>
    ({ delivered: false, statusCode, durationMs: took(), excerpt, error }) satisfies AttemptResult;
  const url = new URL(message.url);
  // A literal address is never looked up, so the guard would not see it: checked here.
  const problem = urlProblem(url, rules);
  if (problem) return failed(`The endpoint's URL ${problem}; nothing was sent.`);
  const timestamp = Math.floor(message.at.getTime() / 1000);
  let signature: string;
  try {
    signature = new Webhook(message.secret).sign(message.webhookId, message.at, message.body);
  } catch {
    return failed("The endpoint's secret could not be used to sign; rotate it.");
  }
  // Timed from when the request goes out on its connection (connecting has its own bound of the
  // same length), so whatever the sender waited before that never counts against the endpoint.
  const deadline = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const sent = () => {
    timer ??= setTimeout(
      () => deadline.abort(new DOMException(`No answer within ${timeoutMs} ms`, "TimeoutError")),
      timeoutMs,
    );
  };
  let statusCode: number;
  let excerpt: string | null;
  try {
    const response = await request(url, {
      method: "POST",
      dispatcher: connections.for(url).compose(onSent(sent)),
      signal: deadline.signal,
      maxRedirections: 0,
      headers: {
        "content-type": "application/json",
        "user-agent": "agent-service-webhooks",
        "webhook-id": message.webhookId,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signature,
        ...trace,
      },
      body: message.body,
    });
    statusCode = response.statusCode;
    // Never throws: past the time, the status decides, with what came of the body.
    excerpt = await firstBytes(response.body);
  } catch (error) {
    return failed(describeFailure(error, timeoutMs));
  } finally {
    clearTimeout(timer);
  }
  if (statusCode >= 200 && statusCode < 300)
    return { delivered: true, statusCode, durationMs: took(), excerpt, error: null };
  if (statusCode >= 300 && statusCode < 400)
    return failed(
      `The endpoint answered HTTP ${statusCode}, a redirect, which is not followed: give the URL it redirects to.`,
      statusCode,
      excerpt,
    );
  return failed(`The endpoint answered HTTP ${statusCode}.`, statusCode, excerpt);
}

/** Calls `sent` when undici writes the request on its connection, once it has one. */
function onSent(sent: () => void): Dispatcher.DispatchInterceptor {
  return (dispatch) => (options, handler) => {
    const decorated: Dispatcher.DispatchHandlers = new DecoratorHandler(handler);
    const connected = decorated.onConnect?.bind(decorated);
    decorated.onConnect = (abort) => {
      sent();
      connected?.(abort);
    };
    return dispatch(options, decorated);
  };
}

/** At most RESPONSE_EXCERPT_BYTES of the answer as storable text; the rest is never read. */
async function firstBytes(
  body: AsyncIterable<Uint8Array> & { destroy(): unknown },
): Promise<string | null> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= RESPONSE_EXCERPT_BYTES) break;
    }
  } catch {
    // Cut off (the time is up, the connection closed): what came is kept.
  } finally {
    body.destroy();
  }
  if (size === 0) return null;
  const bytes = Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES);
  // `stream: true` holds back a character cut in half at the end rather than mangling it.
  return storableText(new TextDecoder("utf-8").decode(bytes, { stream: true }));
}

function describeFailure(error: unknown, timeoutMs: number): string {
  const code = (error as { code?: string } | undefined)?.code ?? "";
  const name = (error as { name?: string } | undefined)?.name ?? "";
  const refused = resolvedProblem(error, SETTING);
  if (refused) return `The endpoint's host ${refused}; nothing was sent.`;
  if (code === "UND_ERR_CONNECT_TIMEOUT")
    return `The endpoint could not be connected to within ${timeoutMs} ms.`;
  if (name === "TimeoutError" || name === "AbortError" || /TIMEOUT/.test(code))
    return `The endpoint did not answer within ${timeoutMs} ms.`;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EAI_NONAME")
    return "The endpoint's host name could not be resolved.";
  if (code === "ECONNREFUSED") return "The endpoint refused the connection.";
  if (code.startsWith("ERR_TLS") || /CERT|SSL/.test(code))
    return "The TLS connection to the endpoint failed: its certificate was not accepted.";
  return "The endpoint could not be reached, or closed the connection before answering.";
}
