import cluster from "node:cluster";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, maxHeaderSize, type ServerResponse } from "node:http";
import path from "node:path";
import type { Duplex } from "node:stream";
import type { Config } from "../frame/config.ts";
import { log, logRequest, requestIdFrom, startTracing } from "../observability/index.ts";
import { PATH_HEADER, PEER_HEADER, securityHeaders } from "./headers.ts";
import { servedInSpan } from "./request-span.ts";
import { loadRestRoutes, type RestRoutes } from "./rest-routes.ts";
import { STARTING_REASON, startState } from "./start-state.ts";

/**
 * One web process: a `node:http` server in front of Next.js's request handler (its documented
 * custom server). Before Next.js sees a request it does what must hold for every response: the
 * security headers, the socket's address, and a problem for what no route could take.
 */

const ROOT = path.resolve(import.meta.dirname, "..", "..");
/** The service's version, for /health while it starts (the rest of /health is the bundle's). */
const VERSION: string = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).version;

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
const KNOWN_METHODS = new Set(METHODS);

/**
 * Longer than a balancer's idle timeout in front (nginx and HAProxy default to 60 s), so that the
 * balancer closes an idle connection: the other way round, a request sent as it closes is lost.
 */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

export async function serve(config: Config, { dev }: { dev: boolean }): Promise<void> {
  // Before Next.js loads: its own spans, and ours, go to the SDK once it is registered.
  if (config.tracing.exporter === "otlp") await startTracing(config.tracing);
  const { default: next } = await import("next");
  const app = next({ dev, dir: ROOT, hostname: config.host ?? "localhost", port: config.port });
  // Runs instrumentation.ts: configuration, database, scheduler, shutdown (server/frame/start-up.ts).
  await app.prepare();
  const handle = app.getRequestHandler();
  const headers = securityHeaders(dev);
  // In development Next.js compiles a route when it is first asked for: it routes everything.
  const rest: RestRoutes | undefined =
    dev || config.restRouting === "nextjs"
      ? undefined
      : await loadRestRoutes(ROOT, originOf(config));

  // Node.js's own answer to a request without Host would carry none of the headers below.
  const server = createServer({ requireHostHeader: false }, (request, response) => {
    for (const [name, value] of headers) response.setHeader(name, value);
    // One id for the request, on every answer, Next.js's own (redirects, pages, OPTIONS) too.
    const requestId = requestIdOf(request);
    request.headers["x-request-id"] = requestId;
    response.setHeader("x-request-id", requestId);
    // Never the client's word: overwritten on every request (server/callers/caller.ts).
    request.headers[PEER_HEADER] = request.socket.remoteAddress ?? "";
    request.headers[PATH_HEADER] = request.url ?? "";
    const refusal = refusalOf(request);
    if (refusal) {
      answer(request, response, refusal);
      return;
    }
    // While the database opens and migrates, the handlers would hold a health check until the
    // start ends (a monitor's time-out, not an answer): the entry says it is starting at once.
    const starting = startState() === "starting" ? startingAnswer(request, config) : undefined;
    if (starting) {
      answerJson(request, response, starting);
      return;
    }
    // A REST path's handler, called by the entry, or Next.js's request handler: a failure of
    // either outside the handler's own error handling is answered alike.
    const served = servedInSpan(
      request,
      response,
      () => rest?.take(request, response) ?? handle(request, response),
    );
    served.catch((error: unknown) => {
      log.error({ err: error }, "the request's handler failed");
      if (!response.headersSent)
        answer(request, response, {
          status: 500,
          code: "internal_error",
          detail: "An unexpected error occurred; the server's log says more.",
        });
      else response.destroy();
    });
  });
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1000;
  // An Expect other than 100-continue: Node.js would answer 417 itself, without the headers.
  server.on("checkExpectation", (request: IncomingMessage, response: ServerResponse) => {
    for (const [name, value] of headers) response.setHeader(name, value);
    answer(request, response, {
      status: 417,
      code: "bad_request",
      detail:
        "The request's Expect header asks for what this service does not do; send it without.",
    });
  });
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) =>
    answerClientError(error, socket, headers),
  );
  // CONNECT never reaches the request handler: Node.js hands it here, or drops the socket.
  server.on("connect", (request: IncomingMessage, socket: Duplex) => {
    const started = performance.now();
    const refusal = refusalOf(request) as Refusal;
    const requestId = requestIdOf(request);
    writeRaw(socket, refusal, headers, requestId);
    logRefusal(request, refusal.status, started, requestId);
  });
  if (dev) server.on("upgrade", app.getUpgradeHandler());

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    // A worker of a cluster binds the port itself, beside the others (SO_REUSEPORT), and the
    // kernel spreads connections over them. Handed over by the primary instead (Node.js's
    // round-robin), a connection in flight to a worker that dies is never closed: its client
    // waits until its own time-out.
    const own = cluster.isWorker ? { exclusive: true, reusePort: true } : {};
    server.listen({ port: config.port, host: config.host, ...own }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  // Said plainly when only this machine can connect, as it is by default.
  const loopback = /^(127\.|::1$|localhost$)/i.test(config.host);
  log.info(
    { port: config.port, host: config.host },
    `Agent Service: listening on ${originOf(config)}${loopback ? ", loopback only (HOST=0.0.0.0 listens on every interface)" : ""}.`,
  );
}

/** The origin of a handler's `request.url`, as Next.js makes it: the configured host and port. */
function originOf(config: Config): string {
  const host = config.host ?? "localhost";
  return `http://${host.includes(":") ? `[${host}]` : host}:${config.port}`;
}

type Refusal = {
  status: number;
  code: string;
  detail: string;
  headers?: Record<string, string>;
};

const TITLES: Record<number, string> = {
  400: "Bad Request",
  405: "Method Not Allowed",
  408: "Request Timeout",
  417: "Expectation Failed",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
};

function refusalOf(request: IncomingMessage): Refusal | undefined {
  const method = request.method ?? "";
  if (!KNOWN_METHODS.has(method)) {
    return {
      status: 405,
      code: "method_not_allowed",
      detail: `${method.slice(0, 20)} is not a method this service takes: its paths take ${METHODS.join(", ")} (which of them each path takes is in /openapi.json).`,
      headers: { allow: METHODS.join(", ") },
    };
  }
  if (request.headers.host === undefined && request.httpVersion === "1.1") {
    return {
      status: 400,
      code: "bad_request",
      detail: "The request has no Host header, which HTTP/1.1 requires.",
    };
  }
  let url = request.url ?? "/";
  if (!url.startsWith("/")) {
    const target = originFormOf(request, url);
    if (typeof target !== "string") return target;
    request.url = url = target;
  }
  const queryAt = url.indexOf("?");
  const pathname = queryAt === -1 ? url : url.slice(0, queryAt);
  // Next.js would fail its parameter decoding with a plain-text 500 before any handler runs.
  if (pathname.includes("%")) {
    for (const segment of pathname.split("/")) {
      try {
        decodeURIComponent(segment);
      } catch {
        return {
          status: 400,
          code: "bad_request",
          detail: `The path has a malformed percent-escape ('${segment.slice(0, 40)}'): every % must start a valid UTF-8 escape such as %20.`,
        };
      }
    }
  }
  return undefined;
}

/**
 * A request target that is not a path (RFC 9112, section 3.2): `OPTIONS *` asks what the server
 * takes, and an absolute URI naming this host is taken as its path. Anything else (another host,
 * an authority, `*` with another method) is refused: this service is no proxy, and never
 * redirects to a host a client named.
 */
function originFormOf(request: IncomingMessage, target: string): string | Refusal {
  if (target === "*") {
    if (request.method === "OPTIONS")
      return { status: 204, code: "", detail: "", headers: { allow: METHODS.join(", ") } };
    return {
      status: 400,
      code: "bad_request",
      detail: `${request.method} * names no resource: only OPTIONS may be sent to *; send a path such as /health.`,
    };
  }
  let absolute: URL | undefined;
  try {
    absolute = /^https?:\/\//i.test(target) ? new URL(target) : undefined;
  } catch {
    absolute = undefined;
  }
  if (absolute && absolute.host === request.headers.host)
    return `${absolute.pathname}${absolute.search}`;
  return {
    status: 400,
    code: "bad_request",
    detail: absolute
      ? "The request names another host than the one it was sent to; this service is not a proxy."
      : "The request target must be a path starting with '/'.",
  };
}

type JsonAnswer = { status: number; body: unknown; headers?: Record<string, string> };

/**
 * What /health and its probes answer while this process is starting, in their own formats
 * (server/health); undefined for any other request, which waits for the start as before.
 */
function startingAnswer(request: IncomingMessage, config: Config): JsonAnswer | undefined {
  if (request.method !== "GET" && request.method !== "HEAD") return undefined;
  const url = request.url ?? "/";
  const queryAt = url.indexOf("?");
  const pathname = queryAt === -1 ? url : url.slice(0, queryAt);
  const later = { "retry-after": "5" };
  if (pathname === "/health/live") return { status: 200, body: { status: "live" } };
  if (pathname === "/health/ready")
    return { status: 503, body: { status: "not_ready", reason: STARTING_REASON }, headers: later };
  if (pathname === "/health")
    return {
      status: 503,
      body: {
        status: "unhealthy",
        database: "starting",
        reason: STARTING_REASON,
        database_kind: config.databaseUrl ? "postgres" : "pglite",
        provider: config.llm.baseUrl ? "openai-compatible" : "echo",
        version: VERSION,
        uptime_s: Math.floor(process.uptime()),
      },
      headers: later,
    };
  return undefined;
}

function answerJson(request: IncomingMessage, response: ServerResponse, json: JsonAnswer): void {
  const started = performance.now();
  const requestId = requestIdOf(request);
  const body = JSON.stringify(json.body);
  response.writeHead(json.status, {
    "content-type": "application/json",
    "cache-control": "no-store",
    "content-length": Buffer.byteLength(body),
    "x-request-id": requestId,
    ...json.headers,
  });
  response.end(request.method === "HEAD" ? undefined : body);
  logRequest({
    requestId,
    method: request.method ?? "",
    route: "(answered while starting)",
    status: json.status,
    // A 503 while starting is what a start looks like, not a failure to page anyone about.
    level: "info",
    durationMs: performance.now() - started,
  });
}

function problemBody(refusal: Refusal, requestId?: string): string {
  return JSON.stringify({
    type: "about:blank",
    title: TITLES[refusal.status] ?? "Error",
    status: refusal.status,
    detail: refusal.detail,
    code: refusal.code,
    ...(requestId === undefined ? {} : { request_id: requestId }),
  });
}

function answer(request: IncomingMessage, response: ServerResponse, refusal: Refusal): void {
  const started = performance.now();
  const requestId = requestIdOf(request);
  if (refusal.status === 204) {
    response.writeHead(204, { "x-request-id": requestId, ...refusal.headers });
    response.end();
    logRefusal(request, 204, started, requestId);
    return;
  }
  const body = problemBody(refusal, requestId);
  response.writeHead(refusal.status, {
    "content-type": "application/problem+json",
    "cache-control": "no-store",
    "content-length": Buffer.byteLength(body),
    "x-request-id": requestId,
    ...refusal.headers,
  });
  response.end(request.method === "HEAD" ? undefined : body);
  logRefusal(request, refusal.status, started, requestId);
}

function requestIdOf(request: IncomingMessage): string {
  const given = request.headers["x-request-id"];
  return requestIdFrom(Array.isArray(given) ? given[0] : given);
}

function logRefusal(
  request: IncomingMessage,
  status: number,
  started: number,
  requestId = requestIdFrom(undefined),
): void {
  logRequest({
    requestId,
    method: (request.method ?? "").slice(0, 20),
    route: "(refused before routing)",
    status,
    durationMs: performance.now() - started,
  });
}

/** A request Node.js's parser refused: a problem with the security headers, nothing echoed. */
function answerClientError(
  error: NodeJS.ErrnoException,
  socket: Duplex,
  headers: ReadonlyArray<readonly [string, string]>,
): void {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const refusal: Refusal =
    error.code === "HPE_HEADER_OVERFLOW"
      ? {
          status: 431,
          code: "headers_too_large",
          detail: `The request's headers are larger than ${maxHeaderSize / 1024} KiB in all.`,
        }
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? {
            status: 408,
            code: "request_timeout",
            detail: "The request did not arrive in time.",
          }
        : {
            status: 400,
            code: "bad_request",
            detail:
              "The request is not valid HTTP/1.1 (its request line or a header is malformed).",
          };
  writeRaw(socket, refusal, headers);
}

function writeRaw(
  socket: Duplex,
  refusal: Refusal,
  headers: ReadonlyArray<readonly [string, string]>,
  requestId?: string,
): void {
  const body = problemBody(refusal, requestId);
  const lines = [
    `HTTP/1.1 ${refusal.status} ${TITLES[refusal.status]}`,
    ...headers.map(([name, value]) => `${name}: ${value}`),
    ...Object.entries(refusal.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
    "content-type: application/problem+json",
    "cache-control: no-store",
    `content-length: ${Buffer.byteLength(body)}`,
    ...(requestId === undefined ? [] : [`x-request-id: ${requestId}`]),
    "connection: close",
  ];
  socket.end(`${lines.join("\r\n")}\r\n\r\n${body}`);
}
