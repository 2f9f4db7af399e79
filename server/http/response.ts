import { rateLimitHeaders } from "@/server/chat";
import { type Problem, problemFromError } from "@/server/frame/errors";
import { textResponse } from "@/server/instance";
import { log, logRequest } from "@/server/observability";

export const NO_STORE = { "cache-control": "no-store" };

/** A JSON answer, its text carried beside an empty Web body for the server entry (marks.ts). */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return textResponse(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...NO_STORE, ...headers },
  });
}

export function empty(status = 204): Response {
  return new Response(null, { status, headers: NO_STORE });
}

export function problemResponse(p: Problem, headers: Record<string, string> = {}): Response {
  const extra: Record<string, string> = {
    ...refusalHeaders(p),
    ...rateLimitHeaders(p.rate_limit as Parameters<typeof rateLimitHeaders>[0]),
    ...headers,
  };
  return textResponse(JSON.stringify(p), {
    status: p.status,
    headers: { "content-type": "application/problem+json", ...NO_STORE, ...extra },
  });
}

/** The headers of a refusal, whatever the form of its body (a problem, or OpenAI's error). */
export function refusalHeaders(p: Problem): Record<string, string> {
  const headers: Record<string, string> = {};
  if (p.retry_after_s !== undefined) headers["retry-after"] = String(p.retry_after_s);
  // Bearer is the scheme of the admin key and of agent keys; signature and token failures are
  // not about it.
  if (p.code === "unauthorized" || p.code === "key_required" || p.code === "invalid_key")
    headers["www-authenticate"] = 'Bearer realm="agent-service"';
  // The rest of an oversized body is never read: tell the client not to reuse this connection.
  if (p.status === 413) headers.connection = "close";
  return headers;
}

/** Renders any error as a problem response, logging the ones that are our fault. */
export function errorResponse(error: unknown, requestId?: string): Response {
  return problemResponse(failureProblem(error, requestId));
}

export function failureProblem(error: unknown, requestId?: string): Problem {
  const p = problemFromError(error);
  if (p.status >= 500 && p.code === "internal_error")
    log.error({ err: error, request_id: requestId }, "unexpected error");
  return requestId === undefined ? p : { ...p, request_id: requestId };
}

export type RouteParams = Record<string, string | string[] | undefined>;

/** Puts the request's id on the answer and writes its log line, under the declared path if any. */
export function finish(
  request: Request,
  response: Response,
  {
    requestId,
    started,
    params,
    caller,
    route,
  }: {
    requestId: string;
    started: number;
    params: RouteParams;
    caller?: string;
    route?: string;
  },
): Response {
  response.headers.set("x-request-id", requestId);
  const aid = typeof params.aid === "string" ? params.aid : undefined;
  logRequest({
    requestId,
    method: request.method,
    route: route ?? new URL(request.url).pathname,
    status: response.status,
    durationMs: performance.now() - started,
    ...(aid === undefined ? {} : { aid }),
    ...(caller === undefined ? {} : { caller }),
  });
  return response;
}
