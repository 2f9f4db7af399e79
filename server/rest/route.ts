import { createContext } from "@/server/context";
import { problem } from "@/server/errors";
import { servedDirectly } from "@/server/instance";
import { requestIdOf } from "@/server/observability";
import { createProcedureCaller } from "@/server/routers";
import { collectInput, type Endpoint, type Method } from "./endpoint";
import { ENDPOINTS } from "./endpoints";
import { openAiErrorAnswer, openAiErrorResponse } from "./openai";
import { errorResponse, finish, problemResponse, type RouteParams } from "./response";

/**
 * The route handlers of app/**\/route.ts, made from the operation table: each builds the context,
 * collects the input, calls the declared handler and maps any error once. Each is marked so that
 * the server entry may call it ahead of Next.js's router (server/instance/rest-routes.ts).
 */

type RouteHandler = (
  request: Request,
  route: { params: Promise<RouteParams> },
) => Promise<Response>;

const METHODS: Method[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];

/**
 * Every method of one path: the declared operations, and a 405 with `Allow` for the others (HEAD
 * of a GET path is Next.js's own). A route file is `export const { GET, … } = routeFor(path)`.
 */
export function routeFor(path: string): Partial<Record<Method, RouteHandler>> {
  const declared = ENDPOINTS.filter((endpoint) => endpoint.path === path);
  if (declared.length === 0) throw new Error(`No REST operation is declared for ${path}.`);
  const allowed = declared.map((endpoint) => endpoint.method);
  const openAi = declared.some((endpoint) => endpoint.errors === "openai");
  const handlers: Partial<Record<Method, RouteHandler>> = {};
  for (const method of METHODS) {
    const endpoint = declared.find((candidate) => candidate.method === method);
    if (endpoint) handlers[method] = servedDirectly(handlerOf(endpoint));
    else if (method !== "HEAD")
      handlers[method] = servedDirectly(
        methodNotAllowed(allowed, openAi ? "openai" : undefined, path),
      );
  }
  return handlers;
}

function handlerOf(endpoint: Endpoint): RouteHandler {
  if (endpoint.bare) {
    return async (request) => {
      const started = performance.now();
      const requestId = requestIdOf(request.headers);
      let response: Response;
      try {
        response = await (endpoint.answer as NonNullable<Endpoint["answer"]>)({
          request,
          endpoints: ENDPOINTS,
        });
      } catch (error) {
        response = errorResponse(error, requestId);
      }
      return finish(request, response, { requestId, started, params: {}, route: endpoint.path });
    };
  }
  const refuse = endpoint.errors === "openai" ? openAiErrorResponse : errorResponse;
  return async (request, route) => {
    const started = performance.now();
    const requestId = requestIdOf(request.headers);
    let params: Record<string, string> = {};
    let callerKind: string | undefined;
    let response: Response;
    try {
      params = ((await route?.params) ?? {}) as Record<string, string>;
      // REST takes the admin key only: a cookie would let any page of the same site (another
      // port of this host is one) act as a signed-in admin.
      const context = await createContext({ headers: request.headers, cookies: false, requestId });
      callerKind = context.caller.kind;
      // The request's signal reaches the procedures: a client that leaves cancels the model call.
      const procedures = createProcedureCaller(context, { signal: request.signal });
      const input = await collectInput(endpoint, request, params);
      response = await endpoint.handle({ request, procedures, input, params });
    } catch (error) {
      response = refuse(error, requestId);
    }
    return finish(request, response, {
      requestId,
      started,
      params,
      caller: callerKind,
      route: endpoint.path,
    });
  };
}

/** Every method of a path the API does not have: a 404 problem, not Next.js's HTML page. */
export function notFoundRoute(): Record<Method, (request: Request) => Promise<Response>> {
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
  const served = servedDirectly(handler);
  return {
    GET: served,
    HEAD: served,
    POST: served,
    PUT: served,
    PATCH: served,
    DELETE: served,
  };
}

/** A 405 for the methods a path does not serve (in OpenAI's form on its paths). */
export function methodNotAllowed(
  allowed: readonly string[],
  errors?: Endpoint["errors"],
  route?: string,
) {
  const answer = errors === "openai" ? openAiErrorAnswer : problemResponse;
  return async (request: Request): Promise<Response> => {
    const started = performance.now();
    const requestId = requestIdOf(request.headers);
    const response = answer(
      problem(
        405,
        "method_not_allowed",
        `${request.method} is not supported here; use ${allowed.join(" or ")}.`,
        { request_id: requestId },
      ),
      { allow: allowed.join(", ") },
    );
    return finish(request, response, { requestId, started, params: {}, route });
  };
}
