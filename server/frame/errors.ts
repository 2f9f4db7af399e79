import { TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import { z } from "zod";
import {
  codesOf,
  embeddedDatabaseFailure,
  isDatabaseUnavailable,
  isUnstorableText,
  TOO_MANY_CONNECTIONS,
} from "@/db/failures";
import { breaksAidRule } from "@/server/kit/agent-id";

/**
 * The one place where errors become statuses and problem details (what a driver's error means is
 * db/failures.ts's to say). Domain modules throw `AppError` with a stable code and a sentence for
 * people; anything unknown becomes a 500 whose message never reaches the client.
 */

const TRPC_CODES = {
  bad_request: "BAD_REQUEST",
  validation_failed: "BAD_REQUEST",
  invalid_agent_id: "BAD_REQUEST",
  malformed_json: "BAD_REQUEST",
  invalid_cursor: "BAD_REQUEST",
  invalid_siwe_message: "BAD_REQUEST",
  invalid_statement: "BAD_REQUEST",
  unauthorized: "UNAUTHORIZED",
  siwe_rejected: "UNAUTHORIZED",
  invalid_signature: "UNAUTHORIZED",
  invalid_nonce: "UNAUTHORIZED",
  invalid_token: "UNAUTHORIZED",
  wrong_message_purpose: "UNAUTHORIZED",
  key_required: "UNAUTHORIZED",
  invalid_key: "UNAUTHORIZED",
  forbidden: "FORBIDDEN",
  agent_paused: "FORBIDDEN",
  not_found: "NOT_FOUND",
  agent_not_found: "NOT_FOUND",
  model_not_found: "NOT_FOUND",
  deployment_not_found: "NOT_FOUND",
  webhook_not_found: "NOT_FOUND",
  method_not_allowed: "METHOD_NOT_SUPPORTED",
  conflict: "CONFLICT",
  agent_exists: "CONFLICT",
  transition_not_allowed: "CONFLICT",
  already_claimed: "CONFLICT",
  idempotency_key_in_use: "CONFLICT",
  idempotency_key_reused: "UNPROCESSABLE_CONTENT",
  payload_too_large: "PAYLOAD_TOO_LARGE",
  unsupported_media_type: "UNSUPPORTED_MEDIA_TYPE",
  quota_exceeded: "TOO_MANY_REQUESTS",
  rate_limited: "TOO_MANY_REQUESTS",
  too_many_attempts: "TOO_MANY_REQUESTS",
  client_closed_request: "CLIENT_CLOSED_REQUEST",
  chat_cancelled: "CONFLICT",
  internal_error: "INTERNAL_SERVER_ERROR",
  provider_error: "BAD_GATEWAY",
  service_unavailable: "SERVICE_UNAVAILABLE",
  database_unavailable: "SERVICE_UNAVAILABLE",
  provider_timeout: "GATEWAY_TIMEOUT",
} as const satisfies Record<string, TRPC_ERROR_CODE_KEY>;

export type ProblemCode = keyof typeof TRPC_CODES;

export type FieldError = { field: string; detail: string };

export type Problem = {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
  errors?: FieldError[];
  /** Seconds until the condition clears; sent as the Retry-After header too. */
  retry_after_s?: number;
  [extension: string]: unknown;
};

type AppErrorExtras = { errors?: FieldError[]; retryAfterS?: number; [extension: string]: unknown };

export class AppError extends Error {
  override name = "AppError";
  constructor(
    readonly code: ProblemCode,
    /** A sentence a person understands; it is sent to the client as `detail`. */
    readonly detail: string,
    readonly extras: AppErrorExtras = {},
  ) {
    super(detail);
  }
}

const STATUS_TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  499: "Client Closed Request",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

export function toTRPCError(error: AppError): TRPCError {
  return new TRPCError({ code: TRPC_CODES[error.code], message: error.detail, cause: error });
}

/** Maps a failure the client should see for what it is (domain error, database down) to a TRPCError. */
export function mapKnownError(error: unknown): TRPCError | undefined {
  const cause = error instanceof TRPCError ? error.cause : error;
  if (cause instanceof AppError) return toTRPCError(cause);
  if (isDatabaseUnavailable(cause)) return toTRPCError(databaseUnavailable(cause));
  if (isUnstorableText(cause)) {
    return toTRPCError(
      new AppError(
        "bad_request",
        "The request holds text the database cannot store, such as the NUL character.",
      ),
    );
  }
  return undefined;
}

/** The 503 for a database that cannot be used; `error` (the failure) picks the sentence. */
export function databaseUnavailable(error?: unknown): AppError {
  const detail = {
    locked:
      "The embedded database is in use by another process, so this instance cannot open it; " +
      "the other process must stop first (see the server log).",
    unopenable: "The embedded database could not be opened; the server log says why.",
    unreachable: "The database is not reachable right now; try again in a few seconds.",
    full: "The database has no free connection right now; try again in a few seconds.",
  }[
    embeddedDatabaseFailure(error) ??
      (codesOf(error).includes(TOO_MANY_CONNECTIONS) ? "full" : "unreachable")
  ];
  return new AppError("database_unavailable", detail, { retryAfterS: 5 });
}

export function problemFromError(error: unknown): Problem {
  const known = error instanceof TRPCError ? error : mapKnownError(error);
  const cause = known?.cause;
  if (known && cause instanceof AppError) {
    return problem(getHTTPStatusCodeFromError(known), cause.code, cause.detail, cause.extras);
  }
  if (known && cause instanceof z.ZodError) return validationProblem(cause);
  if (known && known.code !== "INTERNAL_SERVER_ERROR") {
    // A TRPCError raised by tRPC itself (unknown procedure, wrong method, unparsable input).
    const status = getHTTPStatusCodeFromError(known);
    return problem(status, codeForStatus(status), known.message);
  }
  return problem(500, "internal_error", "An unexpected error occurred. It has been logged.");
}

export function problem(
  status: number,
  code: ProblemCode,
  detail: string,
  extras: AppErrorExtras = {},
): Problem {
  const { retryAfterS, errors, ...rest } = extras;
  return {
    type: "about:blank",
    title: STATUS_TITLES[status] ?? "Error",
    status,
    detail,
    code,
    ...(errors ? { errors } : {}),
    ...(retryAfterS !== undefined ? { retry_after_s: retryAfterS } : {}),
    ...rest,
  };
}

function codeForStatus(status: number): ProblemCode {
  const entry = Object.entries(TRPC_CODES).find(
    ([, trpcCode]) => getHTTPStatusCodeFromError(new TRPCError({ code: trpcCode })) === status,
  );
  return (entry?.[0] as ProblemCode | undefined) ?? "bad_request";
}

/** One entry per invalid field, and a detail sentence that names them. */
export function validationProblem(error: z.ZodError): Problem {
  const errors = fieldErrors(error);
  const aidError = errors.find(
    (e) => e.field === "aid" || (e.field === "id" && breaksAidRule(e.detail)),
  );
  if (aidError) {
    return problem(400, "invalid_agent_id", `Invalid agent ID format: ${aidError.detail}.`, {
      errors,
    });
  }
  const sentence = errors.map((e) => `${e.field} ${e.detail}`).join("; ");
  return problem(400, "validation_failed", `The request has invalid fields: ${sentence}.`, {
    errors,
  });
}

/** The 400 for fields a schema let through but the service refuses (an MCP server's URL, …). */
export function invalidFields(errors: FieldError[]): AppError {
  return new AppError(
    "validation_failed",
    `The request has invalid fields: ${errors.map((e) => `${e.field} ${e.detail}`).join("; ")}.`,
    { errors },
  );
}

export function fieldErrors(error: z.ZodError): FieldError[] {
  return issueErrors(error.issues);
}

function issueErrors(issues: readonly z.core.$ZodIssue[]): FieldError[] {
  return issues.flatMap((issue): FieldError[] => {
    const base = issue.path.map(String).join(".");
    // A value of one of a union's types (a list where a string or a list is taken): what is wrong
    // inside it, not "Invalid input". A union with a sentence of its own keeps that sentence.
    if (issue.code === "invalid_union" && issue.message === "Invalid input") {
      const taken = issue.errors.filter(
        (branch) =>
          !branch.every((inner) => inner.path.length === 0 && inner.code === "invalid_type"),
      );
      if (taken.length === 1 && taken[0])
        return issueErrors(
          taken[0].map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] })),
        );
    }
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({
        field: base ? `${base}.${key}` : key,
        detail: "is not a known field",
      }));
    }
    return [{ field: base || "body", detail: issue.message }];
  });
}
