import type { z } from "zod";
import type {
  ZodOpenApiExamplesObject,
  ZodOpenApiHeadersObject,
  ZodOpenApiMediaTypeObject,
  ZodOpenApiOperationObject,
  ZodOpenApiResponseObject,
} from "zod-openapi";

/**
 * A REST operation as its procedure declares it, in the procedure's `.meta({ rest })`
 * (server/routers): method, path, documentation, and, where HTTP itself is the point, how it
 * writes its answer. Its parameters or body are the procedure's input, its answer the
 * procedure's output, and its security the procedure's access. server/rest makes the route
 * handlers and the OpenAPI document from these.
 */

export type Method = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * Who may call a procedure: set by the builder it is made with (frame/trpc.ts). The last three
 * are admins' roles (server/admins), restated so that this needs nothing of them.
 */
export type Access = "public" | "wallet" | "viewer" | "operator" | "owner";

/**
 * A successful answer. Its JSON is the procedure's output schema unless `schema` says otherwise;
 * `content` adds other media types (text, CSV, events); `empty` has no body (204).
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
  /** OpenAPI security requirements; left out, they follow the procedure's access. */
  security?: ZodOpenApiOperationObject["security"];
  /** Its successful answers by status. */
  answers: Record<number, Answer>;
  /** Every refusal it gives by status, as problems (documented.ts). */
  refusals: Record<number, ZodOpenApiResponseObject>;
  /** The input comes in a JSON body (the path's parameters are added to it). */
  body?: { required: boolean; maxBytes?: number; examples?: ZodOpenApiExamplesObject };
  /** Refusals as OpenAI's error object (openai.ts) instead of problems, for OpenAI's clients. */
  errors?: "openai";
  /**
   * `open`: query parameters the operation does not take are left alone, not refused (chat,
   * whose callers are browsers and scripts that add their own).
   */
  query?: "open";
  /**
   * It creates or spends: an `Idempotency-Key` makes a retry replay the first answer
   * (server/idempotency), and the document lists the header and its refusals.
   */
  idempotent?: true;
};

/** What a handler is given: the request, the procedures, and its procedure's input as collected. */
export type HandlerArgs<R> = {
  request: Request;
  /** The path's parameters with the query's (or the body's), unvalidated: the procedure checks. */
  input: Record<string, unknown>;
  params: Record<string, string>;
  /** Calls the declaring procedure. */
  call: (input: unknown) => Promise<R>;
  /** Calls another procedure by its dotted path (`chat.stream`), as the request's caller. */
  callProcedure: (name: string, input: unknown) => Promise<unknown>;
};

export type RestOperation<R = unknown> = Documentation & {
  method: Method;
  /** The OpenAPI path, e.g. `/agents/{aid}/runs`; its parameters are the procedure's fields. */
  path: string;
  /** The status of a JSON answer when `handle` is left out (default 200). */
  status?: number;
  /** Writes the answer where HTTP is the point (content negotiation, events, CSV, a 204). */
  handle?: (args: HandlerArgs<R>) => Promise<Response>;
};

/** A procedure's meta (initTRPC's `.meta<ProcedureMeta>()`). */
export type ProcedureMeta = { access?: Access; rest?: RestOperation };

/**
 * A procedure's REST operation, for `.meta(rest(…))`. `R` types what `call` gives a handler:
 * the procedure's output, which tRPC's meta cannot see.
 */
export function rest<R = unknown>(operation: RestOperation<R>): { rest: RestOperation } {
  return { rest: operation as RestOperation };
}
