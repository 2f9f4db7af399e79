import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import openapiTS, { astToString } from "openapi-typescript";
import { describe, expect, it } from "vitest";
import { agentSchema } from "@/server/agents";
import { buildOpenApiDocument, ENDPOINTS, example } from "@/server/rest";

/** Every `app/**\/route.ts` as an API path. */
function routeFiles(dir = "app", found: { path: string; file: string }[] = []) {
  for (const entry of readdirSync(dir)) {
    const file = path.join(dir, entry);
    if (statSync(file).isDirectory()) routeFiles(file, found);
    else if (entry === "route.ts") found.push({ path: apiPath(dir), file });
  }
  return found;
}

function apiPath(dir: string): string {
  return `/${dir
    .split(path.sep)
    .slice(1)
    .map((segment) => segment.replace(/^\[(\w+)\]$/, "{$1}"))
    .join("/")}`;
}

/** The REST routes: tRPC, catch-alls and the docs' own assets are not operations. */
const restRoutes = () =>
  routeFiles().filter(
    (route) => !/\/api\/trpc|\[\.\.\.|\{asset\}/.test(route.path) && !route.path.includes("..."),
  );

describe("the OpenAPI document", () => {
  const doc = buildOpenApiDocument("http://localhost:3000", ENDPOINTS);

  it("is valid OpenAPI 3.1 for a validator", async () => {
    // The parser validates against the specification's schema and checks every $ref.
    // No circular references either: none of the schemas needs one, so one would be a mistake.
    await expect(
      SwaggerParser.validate(structuredClone(doc) as never, { dereference: { circular: false } }),
    ).resolves.toBeTruthy();
  });

  it("has a route file made from the endpoint table for each path, and none without one", () => {
    const routes = restRoutes();
    expect(routes.length).toBeGreaterThan(15);
    for (const route of routes) {
      // The whole file is the table's handlers for its own path: nothing written by hand.
      const text = readFileSync(route.file, "utf8").replace(/\s+/g, "").replace(",)", ")");
      expect(text, route.file).toContain(
        `exportconst{GET,HEAD,POST,PUT,PATCH,DELETE}=routeFor("${route.path}");`,
      );
    }
    const declared = new Set(ENDPOINTS.map((endpoint) => endpoint.path));
    expect([...declared].sort()).toEqual(routes.map((route) => route.path).sort());
  });

  it("describes exactly the declared operations", () => {
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .flatMap(([route, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${route}`))
      .sort();
    expect(documented).toEqual(ENDPOINTS.map((e) => `${e.method} ${e.path}`).sort());
  });

  it("shows examples of the requests and answers of what the dashboard does, and of chat", () => {
    type Media = { examples?: Record<string, { value: unknown }> };
    type Operation = {
      operationId: string;
      requestBody?: { content: Record<string, Media> };
      responses: Record<string, { content?: Record<string, Media> }>;
    };
    const operations = Object.values(doc.paths as Record<string, Record<string, Operation>>)
      .flatMap((methods) => Object.values(methods))
      .filter((operation) =>
        [
          "getAgent",
          "upsertAgent",
          "listThreads",
          "listMessages",
          "runNow",
          "resetQuota",
          "listAgentKeys",
          "createAgentKey",
          "getAgentUsage",
          "getUsage",
          "listPrices",
          "setPrice",
          "chat",
        ].includes(operation.operationId),
      );
    expect(operations).toHaveLength(13);
    for (const operation of operations) {
      const answers = Object.entries(operation.responses).filter(
        ([status]) => Number(status) < 300,
      );
      const media = [
        ...Object.values(operation.requestBody?.content ?? {}),
        ...answers.flatMap(([, answer]) => Object.values(answer.content ?? {})),
      ];
      expect(media.length, operation.operationId).toBeGreaterThan(0);
      for (const one of media)
        expect(Object.keys(one.examples ?? {}), operation.operationId).not.toHaveLength(0);
    }
  });

  it("takes no example its schema refuses", () => {
    expect(() => example(agentSchema, "no quota", { aid: "support-bot" } as never)).toThrow();
  });

  it("gives clients that compile (openapi-typescript)", async () => {
    const types = astToString(await openapiTS(structuredClone(doc) as never));
    const dir = mkdtempSync(path.join(tmpdir(), "openapi-client-"));
    writeFileSync(path.join(dir, "api.ts"), types);
    writeFileSync(
      path.join(dir, "use.ts"),
      `import type { paths } from "./api";
type Reply = paths["/{aid}/chat"]["get"]["responses"]["200"]["content"]["application/json"];
export const replyText = (reply: Reply): string => reply.reply;
type Key = paths["/agents/{aid}/keys"]["post"]["responses"]["201"]["content"]["application/json"];
export const keyOf = (made: Key): string => made.key;
`,
    );
    execFileSync(
      process.execPath,
      [
        path.resolve("node_modules/typescript/bin/tsc"),
        "--noEmit",
        "--strict",
        "--skipLibCheck",
        "--module",
        "esnext",
        "--moduleResolution",
        "bundler",
        "--target",
        "es2022",
        path.join(dir, "use.ts"),
      ],
      { stdio: "pipe" },
    );
  }, 60_000);
});
