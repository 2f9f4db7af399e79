import { z } from "zod";
import type {
  ZodOpenApiExampleObject,
  ZodOpenApiExamplesObject,
  ZodOpenApiMediaTypeObject,
  ZodOpenApiResponseObject,
} from "zod-openapi";
import { MAX_BODY_BYTES } from "./request";

/** The pieces of an operation's documentation (endpoints/), and the document's (openapi.ts). */

export const problemSchema = z
  .looseObject({
    type: z.string(),
    title: z.string(),
    status: z.int(),
    detail: z.string().meta({ description: "A sentence for people." }),
    code: z.string().meta({ description: "A stable machine-readable code, e.g. agent_not_found." }),
    errors: z
      .array(z.object({ field: z.string(), detail: z.string() }))
      .optional()
      .meta({ description: "One entry per invalid field." }),
    retry_after_s: z.int().optional(),
    request_id: z
      .string()
      .optional()
      .meta({ description: "The request's id, as in the X-Request-Id header." }),
  })
  .meta({
    id: "Problem",
    description:
      "RFC 9457 problem details. Some carry more members, e.g. a quota refusal's `limit`, `limit_value` and `rate_limit`.",
  });

/** A real request or answer of the service, parsed by its schema at load so it cannot drift. */
export function example<S extends z.ZodType>(
  schema: S,
  summary: string,
  value: z.input<S>,
): ZodOpenApiExampleObject {
  schema.parse(value);
  return { summary, value };
}

export function jsonContent(
  schema: z.ZodType,
  examples?: ZodOpenApiExamplesObject,
): Record<"application/json", ZodOpenApiMediaTypeObject> {
  return { "application/json": examples ? { schema, examples } : { schema } };
}

export function problem(
  description: string,
  examples?: ZodOpenApiExamplesObject,
): ZodOpenApiResponseObject {
  const media = examples ? { schema: problemSchema, examples } : { schema: problemSchema };
  return { description, content: { "application/problem+json": media } };
}

/** REST takes the admin key only, never the session cookie (route.ts). */
export const ADMIN = [{ adminKey: [] }];

/** An operation anyone may call: it names no security requirement (none is inherited either). */
export const PUBLIC: Record<string, string[]>[] = [];

/** The answer of every operation that needs the database while the database cannot be used. */
export const databaseUnavailable = {
  ...problem(
    "database_unavailable: the database is unreachable, full, or (embedded) held by another process; Retry-After says when to try again.",
  ),
  id: "DatabaseUnavailable",
};

/** The refusals every admin operation can give (the admin key's check itself reads the database). */
export const adminErrors = {
  "401": problem("Missing or wrong admin API key (or the admin key expired, or was revoked)."),
  "403": problem(
    "The admin key's role is below the one this operation needs (viewer, then operator, then owner).",
  ),
  "429": {
    ...problem(
      "too_many_attempts: this client address sent too many wrong keys; every key it sends is refused until Retry-After has passed.",
    ),
    id: "TooManyAttempts",
  },
  "503": databaseUnavailable,
};

export const jsonBodyErrors = {
  "413": {
    ...problem(`payload_too_large: the body is larger than ${MAX_BODY_BYTES / 1024} KiB.`),
    id: "PayloadTooLarge",
  },
  "415": {
    ...problem("unsupported_media_type: the body is not sent as Content-Type: application/json."),
    id: "UnsupportedMediaType",
  },
};

/** What the server entry answers before any route, whatever the path: given to every operation. */
export const refusedBeforeRouting = {
  "408": {
    ...problem("request_timeout: the request did not arrive in time; the connection is closed."),
    id: "RequestTimeout",
  },
  "431": {
    ...problem(
      "headers_too_large: the request's headers are larger than Node.js's limit (16 KiB unless --max-http-header-size says otherwise).",
    ),
    id: "HeadersTooLarge",
  },
};
