import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { createSchema } from "zod-openapi";
import { AID_MAX_LENGTH } from "@/server/kit/agent-id";
import { buildOpenApiDocument, OPERATIONS } from "@/server/rest";
import { CHAT_ID_PATTERN } from "@/server/threads";

/**
 * The document's path and query parameters are the procedures' own input fields: for each
 * operation, the procedure its declaration says it calls is looked up, and
 * every parameter must be one of its input's fields, rendered the same, and none left out. The
 * one header parameter, Idempotency-Key, is on the operations declared idempotent and no other.
 */

type Parameter = { name: string; in: string; required?: boolean; schema: unknown };
type Operation = {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: { properties?: object } }> };
};

const doc = buildOpenApiDocument("http://localhost:3000", OPERATIONS);
const paths = doc.paths as Record<string, Record<string, Operation>>;

/**
 * The procedure the operation calls, as its declaration (the procedure's meta) says; for a bare
 * operation that declares its query (the SSO paths), that declaration, named `bare <path>`.
 */
function proceduresCalled(path: string, method: string): string[] {
  const operation = OPERATIONS.find((o) => o.path === path && o.method === method);
  if (operation?.bare && operation.bareQuery) return [`bare ${path}`];
  return operation?.procedure ? [operation.procedure.name] : [];
}

function inputOf(procedure: string): z.ZodObject {
  const bare = OPERATIONS.find((o) => o.bare && `bare ${o.path}` === procedure)?.bareQuery;
  if (bare) return bare;
  const input = OPERATIONS.find((o) => o.procedure?.name === procedure)?.procedure?.input;
  if (!input) throw new Error(`${procedure} takes no input`);
  return input;
}

const operations = Object.entries(paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, { parameters, ...operation }]) => ({
    path,
    method,
    headers: (parameters ?? []).filter((parameter) => parameter.in === "header"),
    operation: {
      ...operation,
      parameters: (parameters ?? []).filter((parameter) => parameter.in !== "header"),
    },
  })),
);
const withParameters = operations.filter(({ operation }) => operation.parameters?.length);

describe("the OpenAPI document's parameters", () => {
  it("are found on most operations (the check below is not vacuous)", () => {
    expect(withParameters.length).toBeGreaterThanOrEqual(20);
  });

  it.each(withParameters.map((entry) => [`${entry.method.toUpperCase()} ${entry.path}`, entry]))(
    "%s: each parameter is a field of the procedure's input, with its schema",
    (_, { path, method, operation }) => {
      const procedures = proceduresCalled(path, method.toUpperCase());
      expect(procedures.length, "its route handler calls a procedure").toBeGreaterThan(0);
      for (const procedure of procedures) {
        const shape = inputOf(procedure).shape as Record<string, z.ZodType>;
        for (const parameter of operation.parameters ?? []) {
          const field = shape[parameter.name];
          expect(field, `${procedure} takes ${parameter.name}`).toBeDefined();
          if (!field) continue;
          expect(parameter.schema, `${parameter.name}'s schema`).toEqual(
            createSchema(field, { io: "input" }).schema,
          );
          const optional = field.safeParse(undefined).success;
          expect(parameter.required ?? false, `${parameter.name} required`).toBe(
            parameter.in === "path" || !optional,
          );
        }
        // Nothing the procedure takes is left out: each field is a parameter or in the body.
        const body = operation.requestBody?.content["application/json"]?.schema.properties ?? {};
        const documented = [
          ...(operation.parameters ?? []).map((parameter) => parameter.name),
          ...Object.keys(body),
        ];
        expect(documented.sort()).toEqual(Object.keys(shape).sort());
      }
    },
  );

  it("have Idempotency-Key as a header on the operations declared idempotent, and only there", () => {
    const declared = OPERATIONS.filter((o) => o.idempotent && !o.hidden).map(
      (o) => `${o.method} ${o.path}`,
    );
    const documented = operations
      .filter(({ headers }) => headers.length > 0)
      .map(({ path, method }) => `${method.toUpperCase()} ${path}`);
    expect(documented.sort()).toEqual(declared.sort());
    expect(declared).toEqual(expect.arrayContaining(["POST /v1/chat/completions", "POST /agents"]));
    for (const { headers } of operations.filter((o) => o.headers.length > 0))
      expect(headers.map((h) => [h.name, h.required ?? false])).toEqual([
        ["Idempotency-Key", false],
      ]);
  });

  it("give the aid, chat_id and address rules of the procedures' schemas", () => {
    const parameter = (path: string, method: string, name: string) =>
      paths[path]?.[method]?.parameters?.find((p) => p.name === name)?.schema as Record<
        string,
        unknown
      >;
    expect(parameter("/agents/{aid}", "get", "aid")).toMatchObject({
      type: "string",
      maxLength: AID_MAX_LENGTH * 4,
    });
    expect(parameter("/agents/{aid}/threads/{chat_id}/messages", "get", "chat_id")?.pattern).toBe(
      CHAT_ID_PATTERN.source,
    );
    expect(parameter("/v1/nonce", "get", "user_address")?.pattern).toBe("^0x[0-9a-fA-F]{40}$");
  });
});
