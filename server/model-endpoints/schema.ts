import { z } from "zod";
import { LONE_SURROGATE_RULE, NUL_RULE, withoutLoneSurrogate, withoutNul } from "@/server/kit/text";

// Shared by the procedures, REST, OpenAPI and the dashboard: nothing here may import server-only
// code.

export const MAX_MODEL_ENDPOINTS = 5;
const NAME_RULE = "1 to 32 letters, digits, _ or -";
const ENV_RULE = "an environment variable whose name starts with MODEL_ (A-Z, 0-9, _)";
const TIMEOUT_RULE = "must be a whole number of milliseconds from 100 to 600,000, or null";

const storedKeySchema = z
  .object({
    secret: z.literal(true),
    hint: z.string().nullable().meta({
      description:
        "The key's last four characters, when it has 20 or more; null otherwise. The key itself is never shown.",
    }),
  })
  .meta({ description: "An API key, stored encrypted." });

const apiKeyInputSchema = z.union(
  [
    z
      .string()
      .min(1)
      .max(8192)
      .refine((value) => !/[\r\n\0]/.test(value), "must not hold line breaks or NUL")
      .refine(withoutLoneSurrogate, LONE_SURROGATE_RULE)
      .meta({
        description:
          "The key, sent as `Authorization: Bearer`: stored encrypted, never shown again.",
      }),
    z.strictObject({ secret: z.literal(true), hint: z.string().nullable().optional() }).meta({
      description:
        "Keep the key stored for this endpoint (same name, and a base_url of the same origin).",
    }),
  ],
  {
    error:
      'must be the key (a string, stored encrypted), {"secret": true} to keep the stored one, or null',
  },
);

export const modelEndpointInputSchema = z.strictObject({
  name: z
    .string({ error: `must be a name of ${NAME_RULE}` })
    .regex(/^[A-Za-z0-9_-]{1,32}$/, `must be a name of ${NAME_RULE}`)
    .meta({ description: "What usage, metrics and the request log call this endpoint." }),
  base_url: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
    .max(2048, "must be at most 2,048 characters")
    .refine(
      (url) => !/^https?:\/\/[^/?#]*@/i.test(url),
      "must not hold credentials; send the key as api_key, which is stored encrypted",
    )
    .refine(withoutLoneSurrogate, LONE_SURROGATE_RULE)
    .meta({
      description:
        "An OpenAI-compatible API's base URL (…/v1), whose POST /chat/completions is called: on a public host, or a private, loopback or other non-public one MODEL_ALLOWED_HOSTS lists; never a cloud metadata address.",
    }),
  model: z
    .string({ error: "must be a model name" })
    .trim()
    .min(1, "must not be empty")
    .max(200, "must be at most 200 characters")
    .refine(withoutNul, NUL_RULE)
    .refine(withoutLoneSurrogate, LONE_SURROGATE_RULE)
    .meta({ description: "The model asked of this endpoint; replies and prices name it." }),
  api_key: apiKeyInputSchema.nullable().optional(),
  api_key_env: z
    .string({ error: `must name ${ENV_RULE}` })
    .regex(/^MODEL_[A-Z0-9_]{1,100}$/, `must name ${ENV_RULE}`)
    .nullable()
    .optional()
    .meta({
      description: `The key is read from ${ENV_RULE} when the endpoint is called; only the name is stored.`,
    }),
  timeout_ms: z
    .int({ error: TIMEOUT_RULE })
    .min(100, TIMEOUT_RULE)
    .max(600_000, TIMEOUT_RULE)
    .nullable()
    .optional()
    .meta({
      description:
        "How long to wait for this endpoint's first token before trying the next; null or left out: an equal share of the time left (LLM_TIMEOUT_MS) among the endpoints still to try.",
    }),
});

export type ModelEndpointInput = z.output<typeof modelEndpointInputSchema>;

export const modelEndpointsInputSchema = z
  .array(modelEndpointInputSchema, { error: "must be a list of model endpoints" })
  .max(MAX_MODEL_ENDPOINTS, `at most ${MAX_MODEL_ENDPOINTS} model endpoints`)
  .refine(
    (endpoints) => new Set(endpoints.map((endpoint) => endpoint.name)).size === endpoints.length,
    "names an endpoint twice",
  )
  .nullable()
  .meta({
    description:
      "OpenAI-compatible endpoints tried in order: on a connection error, a timeout, 429 or 5xx before the first token, the next one is. Empty or null: the service's configured provider.",
  });

export const modelEndpointSchema = z
  .object({
    name: z.string(),
    base_url: z.string(),
    model: z.string(),
    api_key: storedKeySchema.nullable(),
    api_key_env: z.string().nullable(),
    timeout_ms: z.int().nullable(),
  })
  .meta({ id: "ModelEndpoint" });

export type ModelEndpoint = z.infer<typeof modelEndpointSchema>;
