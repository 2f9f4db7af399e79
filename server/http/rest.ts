import { rateLimitHeaders } from "@/server/chat";
import { createContext } from "@/server/context";
import { AppError, type Problem, problem, problemFromError } from "@/server/errors";
import { log, logRequest, requestIdOf, routePattern } from "@/server/observability";
import { type Caller, createCaller } from "@/server/routers";

/**
 * The REST side of the service: route handlers parse HTTP, call the same tRPC procedure the
 * dashboard uses (through createCaller), and write HTTP. Nothing else happens here.
 */

export const MAX_BODY_BYTES = 64 * 1024;

const NO_STORE = { "cache-control": "no-store" };

export function json(body: unknown, status = 200, headers: HeadersInit = {}): Response {
  return Response.json(body, { status, headers: { ...NO_STORE, ...headers } });
}

export function problemResponse(p: Problem, headers: Record<string, string> = {}): Response {
  const extra: Record<string, string> = { ...headers };
  if (p.retry_after_s !== undefined) extra["retry-after"] = String(p.retry_after_s);
  // Bearer is the scheme of the admin key and of agent keys; signature and token failures are
  // not about it.
  if (p.code === "unauthorized" || p.code === "key_required" || p.code === "invalid_key")
    extra["www-authenticate"] = 'Bearer realm="agent-service"';
  Object.assign(extra, rateLimitHeaders(p.rate_limit as Parameters<typeof rateLimitHeaders>[0]));
  // The rest of an oversized body is never read: tell the client not to reuse this connection.
  if (p.status === 413) extra.connection = "close";
  return new Response(JSON.stringify(p), {
    status: p.status,
    headers: { "content-type": "application/problem+json", ...NO_STORE, ...extra },
  });
}

/** Renders any error as a problem response, logging the ones that are our fault. */
export function errorResponse(error: unknown, requestId?: string): Response {
  const p = problemFromError(error);
  if (p.status >= 500 && p.code === "internal_error")
    log.error({ err: error, request_id: requestId }, "unexpected error");
  return problemResponse(requestId === undefined ? p : { ...p, request_id: requestId });
}

type RouteParams = Record<string, string | string[] | undefined>;
type RestHandler<P extends RouteParams> = (args: {
  request: Request;
  caller: Caller;
  params: P;
}) => Promise<Response>;

/**
 * Wraps a route handler: context from the request's headers, a caller, one error mapping, the
 * request's id on the answer (and in its problem), and one log line.
 */
export function restRoute<P extends RouteParams = RouteParams>(handler: RestHandler<P>) {
  return async (request: Request, route: { params: Promise<P> }): Promise<Response> => {
    const started = performance.now();
    const requestId = requestIdOf(request.headers);
    let params: P | undefined;
    let callerKind: string | undefined;
    let response: Response;
    try {
      params = await route.params;
      // REST takes the admin key only: a cookie would let any page of the same site (another
      // port of this host is one) act as a signed-in admin.
      const context = await createContext({ headers: request.headers, cookies: false, requestId });
      callerKind = context.caller.kind;
      // The request's signal reaches the procedures: a client that leaves cancels the model call.
      const caller = createCaller(context, { signal: request.signal });
      response = await handler({ request, caller, params });
    } catch (error) {
      response = errorResponse(error, requestId);
    }
    return finish(request, response, {
      requestId,
      started,
      params: params ?? {},
      caller: callerKind,
    });
  };
}

/** Puts the request's id on the answer and writes the request's log line. */
export function finish(
  request: Request,
  response: Response,
  {
    requestId,
    started,
    params,
    caller,
  }: {
    requestId: string;
    started: number;
    params: RouteParams;
    caller?: string;
  },
): Response {
  response.headers.set("x-request-id", requestId);
  const aid = typeof params.aid === "string" ? params.aid : undefined;
  logRequest({
    requestId,
    method: request.method,
    route: routePattern(new URL(request.url).pathname, params),
    status: response.status,
    durationMs: performance.now() - started,
    ...(aid === undefined ? {} : { aid }),
    ...(caller === undefined ? {} : { caller }),
  });
  return response;
}

/** Every method of a path the API does not have: a 404 problem, not Next.js's HTML page. */
export function notFoundRoute() {
  const handler = async (request: Request): Promise<Response> => {
    const requestId = requestIdOf(request.headers);
    const response = problemResponse(
      problem(
        404,
        "not_found",
        `There is no ${request.method} ${new URL(request.url).pathname}; the API's paths are listed in /openapi.json.`,
        { request_id: requestId },
      ),
    );
    return finish(request, response, { requestId, started: performance.now(), params: {} });
  };
  return {
    GET: handler,
    HEAD: handler,
    POST: handler,
    PUT: handler,
    PATCH: handler,
    DELETE: handler,
  };
}

/** A 405 handler for the methods a path does not serve. */
export function methodNotAllowed(allowed: string[]) {
  return async (request: Request): Promise<Response> => {
    const started = performance.now();
    const requestId = requestIdOf(request.headers);
    const response = problemResponse(
      problem(
        405,
        "method_not_allowed",
        `${request.method} is not supported here; use ${allowed.join(" or ")}.`,
        { request_id: requestId },
      ),
      { allow: allowed.join(", ") },
    );
    return finish(request, response, { requestId, started, params: {} });
  };
}

/** The query string as a plain object; a parameter given twice is an error, not a guess. */
export function queryParams(request: Request, names: readonly string[]): Record<string, string> {
  const url = new URL(request.url);
  const params: Record<string, string> = {};
  for (const name of names) {
    const values = url.searchParams.getAll(name);
    if (values.length > 1) {
      throw new AppError("bad_request", `The query parameter '${name}' is given more than once.`, {
        errors: [{ field: name, detail: "is given more than once" }],
      });
    }
    if (values[0] !== undefined) params[name] = values[0];
  }
  return params;
}

/**
 * Reads a JSON body of at most MAX_BODY_BYTES. The size is enforced while reading, so a client
 * that lies in Content-Length (or sends none) cannot make the server buffer more.
 */
export async function readJsonBody(
  request: Request,
  { optional = false }: { optional?: boolean } = {},
): Promise<unknown> {
  const declared = Number(request.headers.get("content-length"));
  if (declared > MAX_BODY_BYTES) throw bodyTooLarge();
  const text = await readLimitedText(request);
  // A body that may be left out: none at all is `undefined`, whatever the headers say.
  if (optional && text === "") return undefined;
  const type = request.headers.get("content-type");
  // Required, not assumed: a form or a page's script can send a body with no type (or
  // text/plain) without a preflight; only JSON that says so is read.
  if (!type || !/^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(type)) {
    throw new AppError(
      "unsupported_media_type",
      type
        ? `The body must be JSON (Content-Type: application/json), not '${type}'.`
        : "The body must be JSON, sent with Content-Type: application/json.",
    );
  }
  if (text.trim() === "")
    throw new AppError("malformed_json", "The request body is empty; send a JSON object.");
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new AppError(
      "malformed_json",
      `The request body is not valid JSON: ${(error as Error).message}.`,
    );
  }
}

function bodyTooLarge(): AppError {
  return new AppError(
    "payload_too_large",
    `The request body is larger than ${MAX_BODY_BYTES / 1024} KiB.`,
  );
}

/** The body as text, refused with 413 past MAX_BODY_BYTES (counted as it arrives). */
export async function readLimitedText(request: Request): Promise<string> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      throw bodyTooLarge();
    }
    chunks.push(value);
  }
  const decoder = new TextDecoder("utf-8", { fatal: true });
  try {
    return decoder.decode(Buffer.concat(chunks));
  } catch {
    throw new AppError("malformed_json", "The request body is not valid UTF-8 text.");
  }
}
