import path from "node:path";
import { describe, expect, it } from "vitest";
import { routeHandlers, routesByFilesAlone, SERVED_DIRECTLY } from "@/server/instance";
import { relyingOn } from "../helpers/library";

/**
 * What server/instance/nextjs-internals.ts reads of Next.js's production build (made by the
 * project's globalSetup): the routes manifest, where a route's compiled module is, and that
 * module's handlers, loaded through Next.js's own module runtime.
 */
const root = path.resolve(import.meta.dirname, "../..");
const reads = (what: string) => relyingOn("next", "server/instance/nextjs-internals.ts", what);

describe("Next.js's build, as the server entry reads it", () => {
  it("says in routes-manifest.json that routes follow the route files alone", () => {
    expect(
      routesByFilesAlone(root),
      reads("routes-manifest.json's basePath, rewrites, redirects and headers"),
    ).toBe(true);
  });

  it("loads a route module's handlers, marked with the REST dispatch", async () => {
    const handlers = await routeHandlers(root, "/health/[[...path]]/route").catch(
      (error: Error) => {
        throw new Error(
          `${reads("app-paths-manifest.json and routeModule.userland")} (${error.message})`,
        );
      },
    );
    expect(typeof handlers.GET, reads("routeModule.userland's exports")).toBe("function");
    const dispatch = (handlers.GET as Record<symbol, unknown>)[SERVED_DIRECTLY];
    expect(typeof dispatch, reads("one module instance for the route and the bundle")).toBe(
      "function",
    );
  });
});
