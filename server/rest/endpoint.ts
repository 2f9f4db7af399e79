import type { z } from "zod";
import type {
  ZodOpenApiExamplesObject,
  ZodOpenApiHeadersObject,
  ZodOpenApiMediaTypeObject,
  ZodOpenApiOperationObject,
  ZodOpenApiResponseObject,
} from "zod-openapi";
import { appRouter, type ProcedureCaller } from "@/server/routers";
import { queryParams, readJsonBody } from "./request";
import { json } from "./response";

// A REST operation, declared once: method, path, the procedure it calls, its documentation and
// how it writes HTTP. The route files and the OpenAPI document are both made from these.

export type Method = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * A successful answer: the procedure's output as JSON unless `schema` says otherwise; `content`
 * adds other media types (text, CSV, events); `empty` has no body (204).
 */
export type Answer = {
  description: string;
  examples?: ZodOpenApiExamplesObject;
  schema?: z.ZodType;
  content?: Record<string, ZodOpenApiMediaTypeObject>;
  headers?: ZodOpenApiHeadersObject;
  empty?: true;
};

export type Documentation = {
  operationId: string;
  summary: string;
  description?: string;
  /** OpenAPI security requirements: ADMIN, PUBLIC, or public with an optional agent key. */
  security: ZodOpenApiOperationObject["security"];
  answers: Record<number, Answer>;
  refusals: Record<number, ZodOpenApiResponseObject>;
  /** A JSON body of at most `maxBytes` (default MAX_BODY_BYTES), the path's parameters added. */
  body?: { required: boolean; maxBytes?: number; examples?: ZodOpenApiExamplesObject };
  /** `openai`: refusals as OpenAI's error object, so OpenAI's clients raise their own errors. */
  errors?: "openai";
};

export type HandlerArgs = {
  request: Request;
  procedures: ProcedureCaller;
  /** The path's parameters with the query's (or the body's), unvalidated: the procedure checks. */
  input: Record<string, unknown>;
  params: Record<string, string>;
};

export type Endpoint = Documentation & {
  method: Method;
  path: string;
  pathParams: string[];
  procedure?: { name: string; input: z.ZodObject | undefined; output: z.ZodType | undefined };
  /** No request context: the operator's paths, which answer even when the database is down. */
  bare: boolean;
  handle(args: HandlerArgs): Promise<Response>;
  answer?(args: BareArgs): Promise<Response>;
};

export type BareArgs = { request: Request; endpoints: readonly Endpoint[] };

type Procedure<R> = (...args: never[]) => Promise<R>;

/** An operation that calls a procedure; without `handle`, the result's JSON with `status`. */
export function endpoint<R>(
  declared: Documentation & {
    method: Method;
    path: string;
    procedure: (procedures: ProcedureCaller) => Procedure<R>;
    status?: number;
    handle?: (args: HandlerArgs & { call: (input: unknown) => Promise<R> }) => Promise<Response>;
  },
): Endpoint {
  const name = procedureName(declared.procedure);
  const definition = (
    appRouter._def.procedures as unknown as Record<
      string,
      { _def: { inputs: z.ZodObject[]; output?: z.ZodType } } | undefined
    >
  )[name];
  if (!definition) throw new Error(`${declared.method} ${declared.path}: no procedure ${name}`);
  const input = definition._def.inputs[0];
  const { procedure: pick, status = 200, handle, ...documentation } = declared;
  return {
    ...documentation,
    pathParams: pathParams(declared.path),
    procedure: { name, input, output: definition._def.output },
    bare: false,
    handle: (args) => {
      const call = (value: unknown) => (pick(args.procedures) as (v: unknown) => Promise<R>)(value);
      return handle ? handle({ ...args, call }) : call(args.input).then((r) => json(r, status));
    },
  };
}

/** An operation that answers from the request alone, with no procedure or request context. */
export function bareEndpoint(
  declared: Documentation & {
    method: Method;
    path: string;
    answer: (args: BareArgs) => Promise<Response>;
  },
): Endpoint {
  const { answer, ...documentation } = declared;
  return {
    ...documentation,
    pathParams: pathParams(declared.path),
    bare: true,
    answer,
    handle: () => Promise.reject(new Error("a bare endpoint answers from the request alone")),
  };
}

export async function collectInput(
  endpoint: Endpoint,
  request: Request,
  params: Record<string, string>,
): Promise<Record<string, unknown>> {
  if (endpoint.body) {
    const body = await readJsonBody(request, {
      optional: !endpoint.body.required,
      ...(endpoint.body.maxBytes ? { maxBytes: endpoint.body.maxBytes } : {}),
    });
    // The procedure validates the body. The path's parameters win over the same names in it,
    // so a body cannot name another agent (or model) than the URL.
    if (endpoint.pathParams.length === 0) return body as Record<string, unknown>;
    const fields = typeof body === "object" && body !== null && !Array.isArray(body) ? body : {};
    return { ...fields, ...params };
  }
  const input = endpoint.procedure?.input;
  const shape = input && "shape" in input ? input.shape : {};
  const names = Object.keys(shape).filter((name) => !endpoint.pathParams.includes(name));
  return { ...queryParams(request, names), ...params };
}

function pathParams(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
}

/** The dotted name of the procedure a selector picks, read by running it on a recorder. */
function procedureName(pick: (procedures: ProcedureCaller) => unknown): string {
  const names: string[] = [];
  const recorder: unknown = new Proxy(() => {}, {
    get: (_, key) => {
      names.push(String(key));
      return recorder;
    },
  });
  pick(recorder as ProcedureCaller);
  return names.join(".");
}
