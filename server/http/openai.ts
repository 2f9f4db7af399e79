import { z } from "zod";
import type { ZodOpenApiResponseObject } from "zod-openapi";
import type { Problem } from "@/server/frame/errors";
import { textResponse } from "@/server/instance";
import { failureProblem, NO_STORE, refusalHeaders } from "./response";

/**
 * The OpenAI-compatible paths' HTTP: refusals in OpenAI's error object, so that OpenAI's clients
 * raise their own error classes, and the standing in OpenAI's `x-ratelimit-*-requests` headers.
 * The refusals are server/frame/errors.ts's; only their form differs.
 */

export const openAiErrorSchema = z
  .object({
    error: z.object({
      message: z.string().meta({ description: "A sentence for people." }),
      type: z.string().meta({
        description:
          "invalid_request_error, authentication_error, permission_error, requests (the caller's rate limit), insufficient_quota (the agent's quota), rate_limit_error or server_error.",
      }),
      param: z.string().nullable().meta({ description: "The request field at fault, if one is." }),
      code: z.string().nullable().meta({
        description:
          "A stable code: the service's problem code, or OpenAI's (model_not_found, invalid_api_key, rate_limit_exceeded).",
      }),
    }),
  })
  .meta({ id: "OpenAIError", description: "OpenAI's error object." });

export type OpenAiError = z.infer<typeof openAiErrorSchema>;

/** The problem codes OpenAI has a code of its own for. */
const OPENAI_CODES: Partial<Record<string, string>> = {
  agent_not_found: "model_not_found",
  invalid_key: "invalid_api_key",
  unauthorized: "invalid_api_key",
  rate_limited: "rate_limit_exceeded",
};

export function openAiError(p: Problem): OpenAiError {
  return {
    error: {
      message: p.detail,
      type: typeOf(p),
      param: paramOf(p),
      code: OPENAI_CODES[p.code] ?? p.code,
    },
  };
}

function typeOf(p: Problem): string {
  if (p.code === "rate_limited") return "requests";
  if (p.code === "quota_exceeded") return "insufficient_quota";
  if (p.status === 401) return "authentication_error";
  if (p.status === 403) return "permission_error";
  if (p.status === 429) return "rate_limit_error";
  if (p.status >= 500) return "server_error";
  return "invalid_request_error";
}

/** The first invalid field, as OpenAI names one (`messages[2].content`). */
function paramOf(p: Problem): string | null {
  const field = p.errors?.[0]?.field;
  if (!field || field === "body") return null;
  return field.replace(/\.(\d+)(?=\.|$)/g, "[$1]");
}

type RateLimitView = { limit: number; remaining: number; reset_s: number } | null | undefined;

/** The caller's standing under OpenAI's header names (its rate limit is a limit of requests). */
export function openAiRateLimitHeaders(rateLimit: RateLimitView): Record<string, string> {
  if (!rateLimit) return {};
  return {
    "x-ratelimit-limit-requests": String(rateLimit.limit),
    "x-ratelimit-remaining-requests": String(rateLimit.remaining),
    "x-ratelimit-reset-requests": `${rateLimit.reset_s}s`,
  };
}

/**
 * A problem as OpenAI's error object. OpenAI's clients retry a 429 by default (waiting as
 * Retry-After says when it is under a minute): a refusal that no retry soon can change (a
 * quota that frees at the next day or month, or never) says `x-should-retry: false`.
 */
export function openAiErrorAnswer(p: Problem, headers: Record<string, string> = {}): Response {
  const extra: Record<string, string> = {
    ...refusalHeaders(p),
    ...openAiRateLimitHeaders(p.rate_limit as RateLimitView),
    ...headers,
  };
  if (p.status === 429 && (p.retry_after_s === undefined || p.retry_after_s > 60))
    extra["x-should-retry"] = "false";
  return textResponse(JSON.stringify(openAiError(p)), {
    status: p.status,
    headers: { "content-type": "application/json", ...NO_STORE, ...extra },
  });
}

export function openAiErrorResponse(error: unknown, requestId?: string): Response {
  return openAiErrorAnswer(failureProblem(error, requestId));
}

export function openAiRefusal(description: string): ZodOpenApiResponseObject {
  return { description, content: { "application/json": { schema: openAiErrorSchema } } };
}
