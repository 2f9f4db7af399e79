import type { z } from "zod";
import type { Documentation, Method } from "@/server/http";
import type { ProcedureCaller } from "@/server/routers";

/** A REST operation as the service serves it: its declaration, resolved (operations.ts). */
export type Operation = Documentation & {
  method: Method;
  path: string;
  pathParams: string[];
  /** The group it is listed under in the document: its router's name. */
  tag: string;
  security: NonNullable<Documentation["security"]>;
  /** The admin role its procedure needs, if it needs one (frame/trpc.ts). */
  role?: "viewer" | "operator" | "owner";
  /** The procedure called, by its dotted path, and its schemas. */
  procedure?: { name: string; input: z.ZodObject | undefined; output: z.ZodType | undefined };
  /** Without request context: the operator's paths, which answer while the database is down. */
  bare: boolean;
  /** A bare operation's query parameters, for the document only (it reads them itself). */
  bareQuery?: z.ZodObject;
  /** Served, but not an operation of the API document (the documentation page's own files). */
  hidden?: true;
  handle(args: HandleArgs): Promise<Response>;
  /** For a bare operation: the whole answer, from the request (and the table, for the document). */
  answer?(args: BareArgs): Promise<Response>;
};

export type HandleArgs = {
  request: Request;
  procedures: ProcedureCaller;
  input: Record<string, unknown>;
  params: Record<string, string>;
};

export type BareArgs = { request: Request; operations: readonly Operation[]; requestId: string };

/** The names of a path's parameters, in order: `/agents/{aid}/keys/{id}` has aid and id. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
}
