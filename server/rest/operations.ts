import { AppError } from "@/server/frame/errors";
import { ADMIN, json, type ProcedureMeta, PUBLIC, queryParams, readJsonBody } from "@/server/http";
import { appRouter, type ProcedureCaller } from "@/server/routers";
import { type Operation, pathParams } from "./operation";
import { operatorOperations } from "./operator";
import { signInOperations } from "./sign-in";
import { proceduresOf } from "./trpc-internals";

/**
 * Every REST operation of the service: those the procedures of server/routers declare in their
 * meta, then the operator's (operator.ts), then the dashboard's SSO paths (sign-in.ts), in that
 * order (the OpenAPI document lists them so). The route handlers (route.ts) and the OpenAPI
 * document (openapi.ts) are made from this table.
 */

const SECURITY: Record<NonNullable<ProcedureMeta["access"]>, Operation["security"]> = {
  public: PUBLIC,
  // REST takes the admin key only; a wallet's session cookie is the dashboard's.
  wallet: ADMIN,
  viewer: ADMIN,
  operator: ADMIN,
  owner: ADMIN,
};

/** The admin role an operation needs over REST, where a wallet's session does not count. */
function adminRole(access: ProcedureMeta["access"]): Operation["role"] {
  if (access === "wallet") return "viewer";
  return access === "viewer" || access === "operator" || access === "owner" ? access : undefined;
}

function fromProcedures(): Operation[] {
  const operations: Operation[] = [];
  for (const procedure of proceduresOf(appRouter)) {
    const declared = procedure.meta.rest;
    if (!declared) continue;
    const { status = 200, handle, security, ...documentation } = declared;
    operations.push({
      ...documentation,
      security: security ?? SECURITY[procedure.meta.access ?? "public"],
      role: adminRole(procedure.meta.access),
      pathParams: pathParams(declared.path),
      tag: procedure.name.split(".")[0] as string,
      procedure: { name: procedure.name, input: procedure.input, output: procedure.output },
      bare: false,
      handle: (args) => {
        const call = (input: unknown) => callProcedure(args.procedures, procedure.name, input);
        if (!handle) return call(args.input).then((result) => json(result, status));
        const other = (name: string, input: unknown) => callProcedure(args.procedures, name, input);
        return handle({ ...args, call, callProcedure: other });
      },
    });
  }
  return operations;
}

/** Calls a procedure of tRPC's server-side caller by its dotted path. */
function callProcedure(
  procedures: ProcedureCaller,
  name: string,
  input: unknown,
): Promise<unknown> {
  let target: unknown = procedures;
  for (const key of name.split(".")) target = (target as Record<string, unknown>)[key];
  return (target as (input: unknown) => Promise<unknown>)(input);
}

export const OPERATIONS: readonly Operation[] = [
  ...fromProcedures(),
  ...operatorOperations,
  ...signInOperations,
];

/** The procedure's input as a request gives it: the path's parameters, and the query or body. */
export async function collectInput(
  operation: Operation,
  request: Request,
  params: Record<string, string>,
): Promise<Record<string, unknown>> {
  if (operation.body) {
    const body = await readJsonBody(request, {
      optional: !operation.body.required,
      ...(operation.body.maxBytes ? { maxBytes: operation.body.maxBytes } : {}),
    });
    // The procedure validates the body. The path's parameters win over the same names in it,
    // so a body cannot name another agent (or model) than the URL.
    if (operation.pathParams.length === 0) return body as Record<string, unknown>;
    return { ...(body as Record<string, unknown> | undefined), ...params };
  }
  const input = operation.procedure?.input;
  const shape = input && "shape" in input ? input.shape : {};
  const names = Object.keys(shape).filter((name) => !operation.pathParams.includes(name));
  if (operation.query !== "open") refuseUnknownQuery(operation, request, names);
  return { ...queryParams(request, names), ...params };
}

/** A filter the operation does not have is refused, never ignored: ignored, it lists everything. */
function refuseUnknownQuery(operation: Operation, request: Request, names: string[]): void {
  const queryAt = request.url.indexOf("?");
  if (queryAt === -1) return;
  const unknown = [...new URLSearchParams(request.url.slice(queryAt)).keys()].filter(
    (name) => !names.includes(name),
  );
  if (unknown.length === 0) return;
  const takes = names.length > 0 ? `it takes ${names.join(", ")}` : "it takes none";
  throw new AppError(
    "validation_failed",
    `${operation.method} ${operation.path} has no query parameter ${unknown.map((name) => `'${name.slice(0, 40)}'`).join(", ")}; ${takes}.`,
    {
      errors: [...new Set(unknown)].map((name) => ({
        field: name.slice(0, 40),
        detail: "is not a parameter of this operation",
      })),
    },
  );
}
