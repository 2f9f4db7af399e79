import type { IncomingMessage, ServerResponse } from "node:http";
import {
  extractTraceContext,
  SpanKind,
  startSpan,
  tracingOn,
  withContext,
} from "../observability/index.ts";

/**
 * The request's server span, child of the client's `traceparent` if it sent one, active for
 * everything the request does and ended when its answer is done (or cut). With tracing off, the
 * request is served as it is.
 */
export function servedInSpan(
  request: IncomingMessage,
  response: ServerResponse,
  serve: () => Promise<void>,
): Promise<void> {
  if (!tracingOn()) return serve();
  const method = request.method ?? "GET";
  const url = request.url ?? "/";
  const queryAt = url.indexOf("?");
  const started = startSpan(
    method,
    {
      kind: SpanKind.SERVER,
      attributes: {
        "http.request.method": method,
        "url.path": queryAt === -1 ? url : url.slice(0, queryAt),
        "url.scheme": "http",
        "network.peer.address": request.socket.remoteAddress ?? "",
      },
    },
    extractTraceContext(request.headers),
  );
  if (!started) return serve();
  response.once("close", () => {
    started.span.setAttribute("http.response.status_code", response.statusCode);
    if (response.statusCode >= 500)
      started.span.setAttribute("error.type", String(response.statusCode));
    started.span.end();
  });
  return withContext(started.context, serve);
}
