import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import openapiTS, { astToString } from "openapi-typescript";
import { describe, expect, it } from "vitest";
import { agentSchema } from "@/server/agents";
import { example } from "@/server/http";
import { buildOpenApiDocument, OPERATIONS } from "@/server/rest";

/** Every `app/**\/route.ts`, by its directory under app/. */
function routeFiles(dir = "app", found: string[] = []) {
  for (const entry of readdirSync(dir)) {
    const file = path.join(dir, entry);
    if (statSync(file).isDirectory()) routeFiles(file, found);
    else if (entry === "route.ts") found.push(path.relative("app", dir).split(path.sep).join("/"));
  }
  return found.sort();
}

/**
 * The route file Next.js routes an operation's path to: a catch-all under its first segment,
 * or, for an agent's own paths (`/{aid}/chat`, `/{aid}/.well-known/agent-card.json`), the file at
 * that path.
 */
function routeFileOf(operationPath: string): string {
  const [first = "", ...rest] = operationPath.slice(1).split("/");
  // Under /{aid}, one route file a path, its parameters as Next.js names dynamic segments.
  const dynamic = (segment: string) => segment.replace(/^\{(.+)\}$/, "[$1]");
  if (first.startsWith("{")) return [first, ...rest].map(dynamic).join("/");
  return first === "v1" ? "v1/[...path]" : `${first}/[[...path]]`;
}

describe("the OpenAPI document", () => {
  const doc = buildOpenApiDocument("http://localhost:3000", OPERATIONS);

  it("is valid OpenAPI 3.1 for a validator", async () => {
    // The parser validates against the specification's schema and checks every $ref.
    // No circular references either: none of the schemas needs one, so one would be a mistake.
    await expect(
      SwaggerParser.validate(structuredClone(doc) as never, { dereference: { circular: false } }),
    ).resolves.toBeTruthy();
  });

  it("routes every operation's path to a route file that is the table's handlers alone", () => {
    const files = routeFiles();
    const needed = new Set(OPERATIONS.map((operation) => routeFileOf(operation.path)));
    // /api/trpc is the dashboard's; /api/[...path] answers a 404 problem for the rest of /api.
    expect(files).toEqual([...needed, "api/[...path]", "api/trpc/[trpc]"].sort());
    for (const dir of files.filter((dir) => !dir.startsWith("api/trpc"))) {
      const text = readFileSync(path.join("app", dir, "route.ts"), "utf8").replace(/\s+/g, "");
      expect(text, dir).toContain("exportconst{GET,HEAD,POST,PUT,PATCH,DELETE}=restRoutes();");
    }
  });

  it("describes exactly the declared operations", () => {
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .flatMap(([route, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${route}`))
      .sort();
    expect(documented).toEqual(
      OPERATIONS.filter((o) => !o.hidden)
        .map((o) => `${o.method} ${o.path}`)
        .sort(),
    );
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
