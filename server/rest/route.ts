import { createContext } from "@/server/frame/context";
import { problem } from "@/server/frame/errors";
import {
  errorResponse,
  finish,
  type Method,
  openAiErrorAnswer,
  openAiErrorResponse,
  problemResponse,
} from "@/server/http";
import { servedDirectly } from "@/server/instance";
import { requestIdOf } from "@/server/observability";
import { createProcedureCaller } from "@/server/routers";
import { answerOnceIfAsked } from "./idempotent";
import type { Operation } from "./operation";
import { collectInput, OPERATIONS } from "./operations";

/**
 * The REST paths' handlers, found in the operation table by method and path: every route file
 * of app/ is `export const { GET, … } = restRoutes()` (a catch-all under each of the API's first
 * segments), and the server entry calls the same handlers ahead of Next.js's router through the
 * mark they carry (server/instance/rest-routes.ts). A path under the API that no operation has
 * is a 404 problem, a method a path does not take a 405 with `Allow`.
 */

type Handler = (request: Request) => Promise<Response>;

/**
 * The handler of a request, by its method and path, if the path is the API's (an operation's,
 * or under one of the API's first segments); undefined leaves it to Next.js.
 */
export type RestDispatch = (method: string, pathname: string) => Handler | undefined;

const METHODS: readonly Method[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];

type Route = {
  path: string;
  segments: (string | { param: string })[];
  byMethod: Map<string, Operation>;
  allowed: string[];
  openAi: boolean;
};

const routes = routesOf(OPERATIONS);
const byFirst = new Map<string, Route[]>();
const paramFirst = routes.filter((route) => typeof route.segments[0] !== "string");
for (const route of routes) {
  const first = route.segments[0];
  if (typeof first !== "string") continue;
  byFirst.set(first, [...(byFirst.get(first) ?? []), route]);
}

/**
 * Where a path the API does not have is answered in OpenAI's form: under a first segment that
 * has OpenAI operations (/v1), unless its second segment is one of the service's own operations
 * (/v1/deployments, /v1/nonce). An OpenAI client asking for /v1/responses gets an error it reads.
 */
const openAiPrefixes = new Set(
  routes.filter((route) => route.openAi).map((route) => route.segments[0] as string),
);
const problemPrefixes = new Set(
  routes
    .filter((route) => !route.openAi && typeof route.segments[1] === "string")
    .map((route) => `${route.segments[0] as string}/${route.segments[1] as string}`),
);

/** The routes, each path once, the more literal first: `/agents/{aid}` before `/{aid}/chat`. */
function routesOf(operations: readonly Operation[]): Route[] {
  const byPath = new Map<string, Route>();
  for (const operation of operations) {
    let route = byPath.get(operation.path);
    if (!route) {
      route = {
        path: operation.path,
        segments: operation.path
          .slice(1)
          .split("/")
          .map((segment) => {
            const param = /^\{(\w+)\}$/.exec(segment)?.[1];
            return param ? { param } : segment;
          }),
        byMethod: new Map(),
        allowed: [],
        openAi: false,
      };
      byPath.set(operation.path, route);
    }
    route.byMethod.set(operation.method, operation);
    route.allowed.push(operation.method);
    if (operation.errors === "openai") route.openAi = true;
  }
  for (const route of byPath.values())
    route.allowed.sort((a, b) => METHODS.indexOf(a as Method) - METHODS.indexOf(b as Method));
  const rank = (route: Route) =>
    route.segments.map((segment) => (typeof segment === "string" ? "0" : "1")).join("");
  return [...byPath.values()].sort((a, b) => rank(a).localeCompare(rank(b)));
}

function match(route: Route, segments: string[]): Record<string, string> | undefined {
  if (route.segments.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const expected = route.segments[i] as Route["segments"][number];
    const given = segments[i] as string;
    if (typeof expected === "string") {
      if (expected !== given) return undefined;
    } else params[expected.param] = decoded(given);
  }
  return params;
}

/** A segment decoded as Next.js gives it; a malformed escape is left as it is, for the schema. */
function decoded(segment: string): string {
  if (!segment.includes("%")) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export const dispatch: RestDispatch = (method, pathname) => {
  if (!(METHODS as readonly string[]).includes(method)) return undefined;
  const segments = pathname.slice(1).split("/");
  const first = segments[0] as string;
  // As Next.js routes: a first segment the API names literally is never an agent's id.
  for (const route of byFirst.get(first) ?? paramFirst) {
    const params = match(route, segments);
    if (!params) continue;
    const operation =
      route.byMethod.get(method) ?? (method === "HEAD" ? route.byMethod.get("GET") : undefined);
    if (operation) return (request) => handlerOf(operation)(request, params);
    return methodNotAllowed(route);
  }
  if (!byFirst.has(first)) return undefined;
  return openAiPrefixes.has(first) && !problemPrefixes.has(`${first}/${segments[1]}`)
    ? notFoundForOpenAi
    : notFound;
};

/** Every method's handler for a route file; each carries the dispatch for the server entry. */
export function restRoutes(): Record<Method, Handler> {
  const handlers = {} as Record<Method, Handler>;
  for (const method of METHODS) {
    handlers[method] = servedDirectly((request: Request) => {
      const handler = dispatch(method, new URL(request.url).pathname) ?? notFound;
      return handler(request);
    }, dispatch);
  }
  return handlers;
}

const handlers = new Map<
  Operation,
  (request: Request, params: Record<string, string>) => Promise<Response>
>();

function handlerOf(operation: Operation) {
  let handler = handlers.get(operation);
  if (!handler) {
    handler = operation.bare ? bareHandler(operation) : procedureHandler(operation);
    handlers.set(operation, handler);
  }
  return handler;
}

function bareHandler(operation: Operation) {
  return async (request: Request): Promise<Response> => {
    const started = performance.now();
    const requestId = requestIdOf(request.headers);
    let response: Response;
    try {
      response = await (operation.answer as NonNullable<Operation["answer"]>)({
        request,
        operations: OPERATIONS,
        requestId,
      });
    } catch (error) {
      response = errorResponse(error, requestId);
    }
    return finish(request, response, { requestId, started, params: {}, route: operation.path });
  };
}

function procedureHandler(operation: Operation) {
  const refuse = operation.errors === "openai" ? openAiErrorResponse : errorResponse;
  return async (request: Request, params: Record<string, string>): Promise<Response> => {
    const started = performance.now();
    const requestId = requestIdOf(request.headers);
    let callerKind: string | undefined;
    let response: Response;
    try {
      // REST takes the admin key only: a cookie would let any page of the same site (another
      // port of this host is one) act as a signed-in admin.
      const context = await createContext({ headers: request.headers, cookies: false, requestId });
      callerKind = context.caller.kind;
      // The request's signal reaches the procedures: a client that leaves cancels the model call.
      const procedures = createProcedureCaller(context, { signal: request.signal });
      const input = await collectInput(operation, request, params);
      const work = () => operation.handle({ request, procedures, input, params });
      response = await answerOnceIfAsked(operation, context, request, input, work);
    } catch (error) {
      response = refuse(error, requestId);
    }
    return finish(request, response, {
      requestId,
      started,
      params,
      caller: callerKind,
      route: operation.path,
    });
  };
}

/**
 * A path under the API that no operation has: a 404 problem, not Next.js's HTML page, or
 * OpenAI's error object where an OpenAI client may be asking.
 */
function notFoundIn(answer: typeof problemResponse): Handler {
  return async (request) => {
    const requestId = requestIdOf(request.headers);
    const response = answer(
      problem(
        404,
        "not_found",
        `There is no ${request.method} ${new URL(request.url).pathname}; the API's paths are listed in /openapi.json.`,
        { request_id: requestId },
      ),
    );
    return finish(request, response, { requestId, started: performance.now(), params: {} });
  };
}

const notFound = notFoundIn(problemResponse);
const notFoundForOpenAi = notFoundIn(openAiErrorAnswer);

/** A 405 for a method the path does not take (in OpenAI's form on its paths), with `Allow`. */
function methodNotAllowed(route: Route): Handler {
  const answer = route.openAi ? openAiErrorAnswer : problemResponse;
  return async (request) => {
    const started = performance.now();
    const requestId = requestIdOf(request.headers);
    const response = answer(
      problem(
        405,
        "method_not_allowed",
        `${request.method} is not supported here; use ${route.allowed.join(" or ")}.`,
        { request_id: requestId },
      ),
      { allow: route.allowed.join(", ") },
    );
    return finish(request, response, { requestId, started, params: {}, route: route.path });
  };
}
