import type { IncomingMessage, ServerResponse } from "node:http";
import { log } from "../observability/index.ts";
import { SERVED_DIRECTLY } from "./marks.ts";
import { routeHandlers, routesByFilesAlone } from "./nextjs-internals.ts";
import { sendWebResponse, webRequest } from "./web-bridge.ts";

/**
 * The REST paths, served ahead of Next.js's request handler by the very handlers Next.js would
 * call: the REST route files' handlers carry the REST dispatch (server/rest/route.ts), which
 * knows every operation's path. Pages, `/api/trpc`, static files and anything this router is
 * unsure of go to Next.js. What this skips is Next.js's routing, its async-storage scopes and
 * its Web Streams pipe; what a client sees is the same.
 */

type Handler = (request: Request) => Promise<Response>;
type Dispatch = (method: string, pathname: string) => Handler | undefined;

/** The route file whose handlers carry the dispatch: any REST route file would do. */
const CARRIER = "/health/[[...path]]/route";

export type RestRoutes = {
  /**
   * Serves the request if its path is the API's, settling when the answer is written; undefined
   * leaves it to Next.js. A rejection is a failure outside the handler's own error handling.
   */
  take(request: IncomingMessage, response: ServerResponse): Promise<void> | undefined;
};

/**
 * The REST routes of the production build in `root/.next`, or undefined (Next.js serves
 * everything) where next.config could route a path otherwise than its route files say.
 */
export async function loadRestRoutes(
  root: string,
  origin: string,
): Promise<RestRoutes | undefined> {
  if (!routesByFilesAlone(root)) {
    log.warn(
      "next.config has a base path, rewrites, redirects or headers: every path goes through Next.js's router.",
    );
    return undefined;
  }
  const handlers = await routeHandlers(root, CARRIER);
  const dispatch = (handlers.GET as { [SERVED_DIRECTLY]?: Dispatch } | undefined)?.[
    SERVED_DIRECTLY
  ];
  if (typeof dispatch !== "function") throw new Error(`${CARRIER} carries no REST dispatch.`);

  const take = (request: IncomingMessage, response: ServerResponse) => {
    const url = request.url ?? "/";
    const queryAt = url.indexOf("?");
    const pathname = queryAt === -1 ? url : url.slice(0, queryAt);
    if (!isPlainPath(pathname)) return undefined;
    const handler = dispatch(request.method ?? "GET", pathname);
    if (!handler) return undefined;
    return serveWith(handler, request, response, origin);
  };
  return { take };
}

async function serveWith(
  handler: Handler,
  request: IncomingMessage,
  response: ServerResponse,
  origin: string,
): Promise<void> {
  const aborter = new AbortController();
  response.once("close", () => {
    if (!response.writableFinished) aborter.abort();
  });
  const method = request.method ?? "GET";
  const answer = await handler(webRequest(request, origin, aborter.signal));
  await sendWebResponse(answer, response, method);
}

/**
 * A path this router may decide: absolute, no empty, `.` or `..` segment, no trailing slash
 * (Next.js redirects it), no percent-escape (Next.js normalises those) and not under `/_next/`.
 * Anything else is Next.js's: the same handler answers there, only later.
 */
function isPlainPath(pathname: string): boolean {
  if (pathname === "/" || !pathname.startsWith("/") || pathname.endsWith("/")) return false;
  if (pathname.includes("%") || pathname.startsWith("/_next/")) return false;
  for (const segment of pathname.split("/").slice(1)) {
    if (segment === "" || segment === "." || segment === "..") return false;
  }
  return true;
}
