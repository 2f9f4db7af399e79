import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import openapiTS, { astToString } from "openapi-typescript";
import { describe, expect, it } from "vitest";
import { agentSchema } from "@/server/agents";
import { buildOpenApiDocument, example } from "@/server/openapi";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** Every `app/**\/route.ts` as an API path and the methods it really serves. */
function routeFiles(dir = "app", found: { path: string; methods: string[] }[] = []) {
  for (const entry of readdirSync(dir)) {
    const file = path.join(dir, entry);
    if (statSync(file).isDirectory()) routeFiles(file, found);
    else if (entry === "route.ts") found.push({ path: apiPath(dir), methods: servedMethods(file) });
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

/** The methods a route file exports, leaving out those that only answer 405. */
function servedMethods(file: string): string[] {
  const source = readFileSync(file, "utf8");
  const refused = new Set<string>();
  for (const [, method] of source.matchAll(/export const (\w+) = methodNotAllowed\(/g))
    refused.add(method as string);
  for (const [, method, alias] of source.matchAll(/export const (\w+) = (\w+);/g))
    if (refused.has(alias as string)) refused.add(method as string);
  const exported = new Set<string>();
  for (const method of METHODS) {
    const pattern = new RegExp(
      `export (const ${method}\\b|(async )?function ${method}\\b|\\{[^}]*\\b${method}\\b[^}]*\\})`,
    );
    if (pattern.test(source)) exported.add(method);
  }
  return [...exported].filter((method) => !refused.has(method));
}

/** The paths the document describes: tRPC, catch-alls and the docs' own assets are not REST. */
const documentedRoutes = () =>
  routeFiles().filter(
    (route) =>
      !/\/api\/trpc|\{\w+\}\/\.\.\.|\[\.\.\.|\{asset\}/.test(route.path) &&
      !route.path.includes("..."),
  );

describe("the OpenAPI document", () => {
  const doc = buildOpenApiDocument("http://localhost:3000");

  it("is valid OpenAPI 3.1 for a validator", async () => {
    // The parser validates against the specification's schema and checks every $ref.
    // No circular references either: none of the schemas needs one, so one would be a mistake.
    await expect(
      SwaggerParser.validate(structuredClone(doc) as never, { dereference: { circular: false } }),
    ).resolves.toBeTruthy();
  });

  it("describes every route and method the service serves, and nothing it does not", () => {
    const routes = documentedRoutes();
    expect(routes.length).toBeGreaterThan(15);
    const paths = doc.paths as Record<string, Record<string, unknown>>;
    for (const route of routes) {
      expect(paths[route.path], `${route.path} is not in the document`).toBeDefined();
      for (const method of route.methods) {
        expect(paths[route.path]?.[method.toLowerCase()], `${method} ${route.path}`).toBeDefined();
      }
    }
    const served = new Map(routes.map((route) => [route.path, route.methods]));
    for (const [documented, operations] of Object.entries(paths)) {
      expect(served.has(documented), `${documented} is documented but not served`).toBe(true);
      for (const method of Object.keys(operations)) {
        expect(served.get(documented), `${method} ${documented}`).toContain(method.toUpperCase());
      }
    }
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
