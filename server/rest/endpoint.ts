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

/**
 * A REST operation, declared once: its method and path, the procedure it calls (whose input
 * schema gives its path and query parameters or its body, and whose output schema its answer),
 * its documentation (summary, security, every status it answers, examples), and how it writes
 * HTTP. The route files (`routeFor`, route.ts) and the OpenAPI document (openapi.ts) are made
 * from these declarations; nothing about an operation is written twice.
 */

export type Method = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * A successful answer. Its JSON is the procedure's output schema unless `schema` says otherwise
 * (an answer that unwraps the procedure's result); `content` adds other media types (text, CSV,
 * events); `empty` has no body (204).
 */
export type Answer = {
  description: string;
  examples?: ZodOpenApiExamplesObject;
  schema?: z.ZodType;
  content?: Record<string, ZodOpenApiMediaTypeObject>;
  headers?: ZodOpenApiHeadersObject;
  empty?: true;
};

/** What an operation's documentation says, beside what its procedure's schemas say. */
export type Documentation = {
  operationId: string;
  summary: string;
  description?: string;
  /** OpenAPI security requirements: ADMIN, PUBLIC, or public with an optional agent key. */
  security: ZodOpenApiOperationObject["security"];
  /** Its successful answers by status. */
  answers: Record<number, Answer>;
  /** Every refusal it gives by status, as problems (documented.ts). */
  refusals: Record<number, ZodOpenApiResponseObject>;
  /**
   * The input comes in a JSON body (the path's parameters are added to it), of at most
   * `maxBytes` (default MAX_BODY_BYTES).
   */
  body?: { required: boolean; maxBytes?: number; examples?: ZodOpenApiExamplesObject };
  /**
   * How refusals are written: RFC 9457 problems (the default), or OpenAI's error object on the
   * OpenAI-compatible paths (openai.ts), so that OpenAI's clients raise their own errors.
   */
  errors?: "openai";
};

/** What a handler is given: the request, the procedures, the procedure's input as collected. */
export type HandlerArgs = {
  request: Request;
  procedures: ProcedureCaller;
  /** The path's parameters with the query's (or the body's), unvalidated: the procedure checks. */
  input: Record<string, unknown>;
  params: Record<string, string>;
};

export type Endpoint = Documentation & {
  method: Method;
  /** The OpenAPI path, e.g. `/agents/{aid}/runs`; its parameters are the procedure's fields. */
  path: string;
  pathParams: string[];
  /** The procedure called, by its dotted name (e.g. `runs.list`), and its schemas. */
  procedure?: { name: string; input: z.ZodObject | undefined; output: z.ZodType | undefined };
  /**
   * With no request context: the operator's paths (probes, metrics, the document itself), which
   * answer even when the database cannot be reached.
   */
  bare: boolean;
  handle(args: HandlerArgs): Promise<Response>;
  /** For a bare endpoint: the whole answer, from the request (and, for the document, the table). */
  answer?(args: BareArgs): Promise<Response>;
};

export type BareArgs = { request: Request; endpoints: readonly Endpoint[] };

type Procedure<R> = (...args: never[]) => Promise<R>;

/**
 * An operation that calls a procedure. `procedure` picks it from the caller (`(p) =>
 * p.runs.list`); `handle` writes the answer, JSON of the result with `status` (default 200) when
 * left out.
 */
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

/**
 * An operation that calls no procedure and needs no request context (probes, metrics, the
 * document itself): it answers from the request alone.
 */
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

/** The procedure's input as a request gives it: the path's parameters, and the query or body. */
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
