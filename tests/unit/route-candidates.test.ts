import { describe, expect, it } from "vitest";
import { type DynamicRoute, routesByFirstSegment } from "@/server/instance";

/**
 * The server entry tries only the dynamic routes whose first segment could match a path
 * (server/instance/route-candidates.ts). Whichever route it picks must be the one the full list,
 * in the router's order, picks first.
 */

/** A route as Next.js's manifest writes it: literal segments, `[name]`, `[...name]`. */
function route(page: string): DynamicRoute {
  const keys: DynamicRoute["keys"] = [];
  const parts = page
    .split("/")
    .slice(1)
    .map((segment) => {
      const catchAll = segment.startsWith("[...");
      if (!segment.startsWith("[")) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      const name = segment.replace(/^\[(\.\.\.)?|\]$/g, "");
      keys.push({ group: `nxtP${name}`, name, catchAll });
      return `(?<nxtP${name}>${catchAll ? ".+?" : "[^/]+?"})`;
    });
  return { page, pattern: new RegExp(`^/${parts.join("/")}(?:/)?$`), keys };
}

// The build's dynamic routes in its manifest's order (the chat's last).
const BUILT = [
  "/agents/[aid]",
  "/agents/[aid]/keys",
  "/agents/[aid]/keys/[id]",
  "/agents/[aid]/runs",
  "/agents/[aid]/threads/[chat_id]/messages",
  "/agents/[aid]/[...rest]",
  "/api/trpc/[trpc]",
  "/api/[...rest]",
  "/dashboard/agents/[aid]",
  "/dashboard/[...missing]",
  "/health/[...rest]",
  "/v1/deployments/[id]/status",
  "/v1/[...rest]",
  "/webhooks/[id]/deliveries/[delivery_id]/retry",
  "/[aid]/chat",
].map(route);

const PATHS = [
  "/a1/chat",
  "/agents/chat",
  "/agents/a1",
  "/agents/a1/keys/k1",
  "/agents/a1/threads/t/messages",
  "/agents/a1/no/such/thing",
  "/api/trpc/chat.send",
  "/api/other",
  "/dashboard/chat",
  "/health/chat",
  "/v1/chat",
  "/v1/deployments/d1/status",
  "/webhooks/w/deliveries/d/retry",
  "/webhooks/chat",
  "/nothing",
  "/x/y/z",
];

function firstMatch(routes: DynamicRoute[], path: string): string | undefined {
  return routes.find((candidate) => candidate.pattern.test(path))?.page;
}

describe("the dynamic routes the entry tries for a path", () => {
  it("picks the route the whole list picks, for the build's routes", () => {
    const candidates = routesByFirstSegment(BUILT);
    for (const path of PATHS)
      expect(firstMatch(candidates(path), path), path).toBe(firstMatch(BUILT, path));
    expect(firstMatch(candidates("/a1/chat"), "/a1/chat")).toBe("/[aid]/chat");
    expect(firstMatch(candidates("/agents/chat"), "/agents/chat")).toBe("/agents/[aid]");
  });

  it("tries only the routes of the path's first segment and those that start with a parameter", () => {
    const candidates = routesByFirstSegment(BUILT);
    expect(candidates("/a1/chat").map((candidate) => candidate.page)).toEqual(["/[aid]/chat"]);
    expect(candidates("/v1/deployments/d1/status").map((candidate) => candidate.page)).toEqual([
      "/v1/deployments/[id]/status",
      "/v1/[...rest]",
      "/[aid]/chat",
    ]);
  });

  it("keeps a route that starts with a parameter in its place before later literal ones", () => {
    const routes = ["/[a]/b", "/x/[y]", "/[c]/[d]"].map(route);
    const candidates = routesByFirstSegment(routes);
    expect(firstMatch(candidates("/x/b"), "/x/b")).toBe("/[a]/b");
    expect(firstMatch(candidates("/x/q"), "/x/q")).toBe("/x/[y]");
    expect(firstMatch(candidates("/z/q"), "/z/q")).toBe("/[c]/[d]");
  });
});
