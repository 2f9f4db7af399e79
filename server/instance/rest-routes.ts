import { readdirSync, readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import { log } from "../observability/index.ts";
import { SERVED_DIRECTLY } from "./marks.ts";
import { type DynamicRoute, routesByFirstSegment } from "./route-candidates.ts";
import { sendWebResponse, webRequest } from "./web-bridge.ts";

/**
 * The REST paths, served ahead of Next.js's request handler (skipping its routing and stream pipe)
 * by the very route handlers it would call, loaded from its build through its own module runtime
 * so they share every module instance. Only handlers made from the operation table carry the mark
 * that lets the entry call them; the rest goes to Next.js. Answers differ only in `Vary: rsc, …`.
 */

type Handler = (request: Request, route: { params: Promise<RouteParams> }) => Promise<Response>;
type RouteParams = Record<string, string | string[]>;
type Userland = Partial<Record<string, Handler>>;
type RouteModule = {
  routeModule: { ensureUserland(): Promise<void>; userland: Userland };
};

type ManifestRoute = { page: string; namedRegex: string; routeKeys: Record<string, string> };
type RoutesManifest = {
  basePath: string;
  headers: unknown[];
  redirects: { internal?: boolean }[];
  rewrites: { beforeFiles: unknown[]; afterFiles: unknown[]; fallback: unknown[] } | unknown[];
  staticRoutes: ManifestRoute[];
  dynamicRoutes: ManifestRoute[];
};

export type RestRoutes = {
  /**
   * Serves the request if its path is a REST route's, settling once the answer is written;
   * undefined leaves it to Next.js. A rejection is a failure outside the handler's own handling.
   */
  take(request: IncomingMessage, response: ServerResponse): Promise<void> | undefined;
};

/**
 * The REST routes of the build in `root/.next`, or undefined (Next.js serves everything) when
 * next.config has a base path, rewrites, redirects or headers that could route a path otherwise.
 */
export async function loadRestRoutes(
  root: string,
  origin: string,
): Promise<RestRoutes | undefined> {
  const distDir = path.join(root, ".next");
  const manifest = JSON.parse(
    readFileSync(path.join(distDir, "routes-manifest.json"), "utf8"),
  ) as RoutesManifest;
  const rewrites = Array.isArray(manifest.rewrites)
    ? manifest.rewrites
    : [
        ...manifest.rewrites.beforeFiles,
        ...manifest.rewrites.afterFiles,
        ...manifest.rewrites.fallback,
      ];
  if (
    manifest.basePath !== "" ||
    manifest.headers.length > 0 ||
    rewrites.length > 0 ||
    manifest.redirects.some((redirect) => !redirect.internal)
  ) {
    log.warn(
      "next.config has a base path, rewrites, redirects or headers: every path goes through Next.js's router.",
    );
    return undefined;
  }

  const files = JSON.parse(
    readFileSync(path.join(distDir, "server", "app-paths-manifest.json"), "utf8"),
  ) as Record<string, string>;
  const requireBuilt = createRequire(path.join(distDir, "server", "index.js"));
  const handlers = new Map<string, Userland>();
  for (const [appPath, file] of Object.entries(files)) {
    if (!appPath.endsWith("/route")) continue;
    const page = pageOf(appPath);
    const loaded = requireBuilt(`./${file}`) as RouteModule;
    await loaded.routeModule.ensureUserland();
    const userland = loaded.routeModule.userland;
    if (Object.values(userland).some((handler) => directOf(handler))) handlers.set(page, userland);
  }

  const staticPages = new Set(manifest.staticRoutes.map((route) => route.page));
  const dynamicRoutes = routesByFirstSegment(
    manifest.dynamicRoutes.map((route) => ({
      page: route.page,
      pattern: new RegExp(route.namedRegex),
      keys: Object.entries(route.routeKeys).map(([group, key]) => {
        const name = key.replace(/^nxtP/, "");
        return { group, name, catchAll: route.page.includes(`[...${name}]`) };
      }),
    })),
  );
  const publicFiles = listFiles(path.join(root, "public"));

  const take = (request: IncomingMessage, response: ServerResponse) => {
    const method = request.method ?? "GET";
    const url = request.url ?? "/";
    const queryAt = url.indexOf("?");
    const pathname = queryAt === -1 ? url : url.slice(0, queryAt);
    if (!isPlainPath(pathname) || publicFiles.has(pathname)) return undefined;
    let page: string | undefined;
    let params: RouteParams = {};
    if (staticPages.has(pathname)) page = pathname;
    else {
      for (const route of dynamicRoutes(pathname)) {
        const match = route.pattern.exec(pathname);
        if (!match) continue;
        page = route.page;
        params = paramsOf(route, match);
        break;
      }
    }
    const direct = page === undefined ? undefined : directOf(handlers.get(page)?.[method]);
    if (!direct) return undefined;
    return serveWith(direct, params, request, response, origin);
  };
  return { take };
}

async function serveWith(
  handler: Handler,
  params: RouteParams,
  request: IncomingMessage,
  response: ServerResponse,
  origin: string,
): Promise<void> {
  const aborter = new AbortController();
  response.once("close", () => {
    if (!response.writableFinished) aborter.abort();
  });
  const method = request.method ?? "GET";
  const answer = await handler(webRequest(request, origin, aborter.signal), {
    params: Promise.resolve(params),
  });
  await sendWebResponse(answer, response, method);
}

/** The handler the entry calls for a route module's handler, if it carries one. */
function directOf(handler: unknown): Handler | undefined {
  if (typeof handler !== "function") return undefined;
  const direct = (handler as { [SERVED_DIRECTLY]?: unknown })[SERVED_DIRECTLY];
  return typeof direct === "function" ? (direct as Handler) : undefined;
}

/** An app path of the manifest (`/dashboard/(admin)/agents/route`) as its page (`/dashboard/agents`). */
function pageOf(appPath: string): string {
  const segments = appPath
    .split("/")
    .slice(0, -1)
    .filter((segment) => segment !== "" && !/^\(.*\)$/.test(segment));
  return `/${segments.join("/")}`;
}

/**
 * A path this router may decide: absolute, no empty, `.` or `..` segment, no trailing slash or
 * percent-escape, not under `/_next/`. Anything else goes to Next.js, to the same handler.
 */
function isPlainPath(pathname: string): boolean {
  if (pathname === "/" || !pathname.startsWith("/") || pathname.endsWith("/")) return false;
  if (pathname.includes("%") || pathname.startsWith("/_next/")) return false;
  for (const segment of pathname.split("/").slice(1)) {
    if (segment === "" || segment === "." || segment === "..") return false;
  }
  return true;
}

/** The route's parameters as Next.js gives them (a catch-all is a list of segments). */
function paramsOf(route: DynamicRoute, match: RegExpExecArray): RouteParams {
  const params: RouteParams = {};
  for (const { group, name, catchAll } of route.keys) {
    const value = match.groups?.[group] ?? "";
    params[name] = catchAll ? value.split("/") : value;
  }
  return params;
}

function listFiles(directory: string): Set<string> {
  try {
    return new Set(
      readdirSync(directory, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) =>
          `/${path.relative(directory, path.join(entry.parentPath, entry.name))}`.replaceAll(
            path.sep,
            "/",
          ),
        ),
    );
  } catch {
    return new Set();
  }
}
