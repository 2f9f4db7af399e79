import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/**
 * The one place that reads Next.js's build beyond its documented custom server: the build's
 * manifests (routes-manifest.json for the configuration's routing, app-paths-manifest.json for
 * where a route's compiled module is) and a compiled route module's handlers, loaded through
 * Next.js's own module runtime so that they share every module instance (database, metrics,
 * configuration) with the rest of the bundle. tests/unit/library-internals.test.ts checks each
 * assumption against the build and names Next.js's version when an upgrade breaks one.
 */

type RoutesManifest = {
  basePath: string;
  headers: unknown[];
  redirects: { internal?: boolean }[];
  rewrites: { beforeFiles: unknown[]; afterFiles: unknown[]; fallback: unknown[] } | unknown[];
};

type RouteModule = {
  routeModule: { ensureUserland(): Promise<void>; userland: Record<string, unknown> };
};

/**
 * Whether the build routes every path by its app/ files alone: no base path, rewrites, redirects
 * or headers of next.config's own, which could send a path elsewhere than its route file.
 */
export function routesByFilesAlone(root: string): boolean {
  const manifest = JSON.parse(
    readFileSync(path.join(root, ".next", "routes-manifest.json"), "utf8"),
  ) as RoutesManifest;
  const rewrites = Array.isArray(manifest.rewrites)
    ? manifest.rewrites
    : [
        ...manifest.rewrites.beforeFiles,
        ...manifest.rewrites.afterFiles,
        ...manifest.rewrites.fallback,
      ];
  return (
    manifest.basePath === "" &&
    manifest.headers.length === 0 &&
    rewrites.length === 0 &&
    manifest.redirects.every((redirect) => redirect.internal)
  );
}

/**
 * The handlers a route file exports (GET, POST, …), from its compiled module in the build;
 * `appPath` is the route's path in app-paths-manifest.json, e.g. `/health/[[...path]]/route`.
 */
export async function routeHandlers(
  root: string,
  appPath: string,
): Promise<Record<string, unknown>> {
  const server = path.join(root, ".next", "server");
  const files = JSON.parse(
    readFileSync(path.join(server, "app-paths-manifest.json"), "utf8"),
  ) as Record<string, string>;
  const file = files[appPath];
  if (!file) throw new Error(`The build has no route ${appPath} (app-paths-manifest.json).`);
  const loaded = createRequire(path.join(server, "index.js"))(`./${file}`) as RouteModule;
  await loaded.routeModule.ensureUserland();
  return loaded.routeModule.userland;
}
