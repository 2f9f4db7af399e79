import { z } from "zod";
import { WEBHOOK_DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES } from "@/db/enums";
import { wholeNumberParam } from "@/server/kit/bounds";
import { isoDateTime } from "@/server/kit/iso-date-time";
import { NUL_RULE, storableString, withoutNul } from "@/server/kit/text";
import { pageParams } from "@/server/pagination/schema";
import { EVENT_BODY_MAX_BYTES, RESPONSE_EXCERPT_BYTES, TRIMMED_MEMBER_MAX_BYTES } from "./view";

/** The longest URL an endpoint may have: more than any real receiver needs. */
export const MAX_URL_LENGTH = 2048;

const URL_RULE = `must be an http or https URL of at most ${MAX_URL_LENGTH} characters`;

/**
 * The URL's form. Where it may point (a private or loopback address needs WEBHOOK_ALLOWED_HOSTS)
 * is the domain's to decide (target.ts), with the configuration.
 */
export const webhookUrlSchema = z
  .string({ error: URL_RULE })
  .trim()
  .min(1, URL_RULE)
  .max(MAX_URL_LENGTH, URL_RULE)
  .refine(withoutNul, NUL_RULE)
  .superRefine((text, ctx) => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      ctx.addIssue({ code: "custom", message: URL_RULE });
      return;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      ctx.addIssue({ code: "custom", message: URL_RULE });
    else if (url.username || url.password)
      ctx.addIssue({
        code: "custom",
        message:
          "must not carry credentials (user:password@): check the signature of each delivery instead",
      });
    else if (url.hash) ctx.addIssue({ code: "custom", message: "must not have a #fragment" });
  })
  .meta({
    description:
      "Where events are POSTed: http or https, no credentials in it. A private, loopback or other non-public address (or a name that resolves to one) only when WEBHOOK_ALLOWED_HOSTS lists it; a cloud metadata address never.",
    examples: ["https://hooks.example.com/agent-service"],
  });

const EVENTS_RULE = `must be a list of one or more of: ${WEBHOOK_EVENT_TYPES.join(", ")}`;

export const webhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES, { error: EVENTS_RULE });

/** The events an endpoint subscribes to: one or more, each once (repeats are dropped). */
export const webhookEventsSchema = z
  .array(webhookEventTypeSchema, { error: EVENTS_RULE })
  .min(1, EVENTS_RULE)
  .max(50, EVENTS_RULE)
  .transform((events) => [...new Set(events)])
  .meta({ description: "The events sent to the endpoint." });

const DESCRIPTION_RULE = "must be text of at most 500 characters, or null";

const descriptionSchema = storableString(DESCRIPTION_RULE)
  .max(500, DESCRIPTION_RULE)
  .nullable()
  .meta({ description: "What the endpoint is for; for people." });

const ID_RULE = "must be a webhook endpoint's id (as the listing gives it), 1 to 100 characters";

export const webhookIdSchema = z
  .string({ error: ID_RULE })
  .min(1, ID_RULE)
  .max(100, ID_RULE)
  .refine(withoutNul, NUL_RULE)
  .meta({ description: "The endpoint's id, `wh_` and 16 hex digits." });

export const webhookIdInputSchema = z.strictObject({ id: webhookIdSchema });

export const createWebhookInputSchema = z.strictObject({
  url: webhookUrlSchema,
  events: webhookEventsSchema,
  description: descriptionSchema.optional(),
});

export const updateWebhookInputSchema = z.strictObject({
  id: webhookIdSchema,
  url: webhookUrlSchema.optional(),
  events: webhookEventsSchema.optional(),
  description: descriptionSchema.optional(),
  enabled: z.boolean({ error: "must be true or false" }).optional().meta({
    description:
      "false stops deliveries to the endpoint; true starts them again (pending deliveries are then sent) and clears why it was disabled.",
  }),
});

export const webhookSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    description: z.string().nullable(),
    events: z.array(webhookEventTypeSchema),
    enabled: z.boolean(),
    disabled_reason: z.string().nullable().meta({
      description:
        "Why the endpoint is disabled, in a sentence: deliveries failed for the whole retry window, or an admin disabled it. Null while enabled.",
    }),
    failing_since: isoDateTime.nullable().meta({
      description: "The first failed attempt since the endpoint last answered 2xx; null if none.",
    }),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .meta({ id: "Webhook" });

export const createdWebhookSchema = webhookSchema
  .extend({
    secret: z.string().meta({
      description:
        "The signing secret, `whsec_` and base64 of 32 random bytes: shown this once, in this answer only. Verify each delivery's webhook-signature with it (Standard Webhooks).",
    }),
  })
  .meta({ id: "CreatedWebhook" });

export const webhookListSchema = z
  .object({ webhooks: z.array(webhookSchema) })
  .meta({ id: "WebhookList" });

export const webhookAttemptSchema = z
  .object({
    attempt: z.int(),
    at: isoDateTime,
    status_code: z.int().nullable().meta({
      description:
        "The receiver's HTTP status; null when none came (refused, unreachable, timed out).",
    }),
    duration_ms: z.number(),
    response_excerpt: z
      .string()
      .nullable()
      .meta({
        description: `The first bytes of the receiver's answer (at most ${RESPONSE_EXCERPT_BYTES}), as text; nothing more of it is kept.`,
      }),
    error: z.string().nullable().meta({
      description: "Why the attempt failed, in the service's own words; null when delivered.",
    }),
  })
  .meta({ id: "WebhookAttempt" });

export const webhookEventSchema = z
  .object({
    type: z.enum([...WEBHOOK_EVENT_TYPES, "webhook.test"]),
    timestamp: isoDateTime,
    data: z.record(z.string(), z.unknown()).meta({
      description:
        "The object as the REST API shows it: a run (GET /agents/{aid}/runs), an agent (GET /agents/{aid}), a deployment (GET /v1/deployments/{id}, with from_status and to_status, and its last 5 changes in history); for agent.limit_reached the limit and the agent's quota.",
    }),
    truncated: z
      .literal(true)
      .optional()
      .meta({
        description: `Present when the body would have passed ${EVENT_BODY_MAX_BYTES / 1024 / 1024} MiB: data keeps only its members of at most ${TRIMMED_MEMBER_MAX_BYTES / 1024} KiB.`,
      }),
    omitted: z.array(z.string()).optional().meta({
      description: "With truncated: the members of data left out, to read through the API.",
    }),
  })
  .meta({ id: "WebhookEvent", description: "The body POSTed to the endpoint." });

export const webhookDeliverySchema = z
  .object({
    id: z.int(),
    webhook_id: z.string().meta({
      description: "The webhook-id header: the same on every attempt of this delivery.",
    }),
    endpoint_id: z.string(),
    event_type: webhookEventSchema.shape.type,
    status: z.enum(WEBHOOK_DELIVERY_STATUSES).meta({
      description:
        "pending (being tried, or waiting for its next try), delivered (answered 2xx), failed (given up).",
    }),
    attempt_count: z.int(),
    next_attempt_at: isoDateTime.nullable().meta({
      description: "When it is tried next, while pending.",
    }),
    created_at: isoDateTime,
    finished_at: isoDateTime.nullable(),
    attempts: z.array(webhookAttemptSchema).meta({
      description: "Its attempts, oldest first (the last 20).",
    }),
    payload: webhookEventSchema,
  })
  .meta({ id: "WebhookDelivery" });

export const listDeliveriesInputSchema = z.strictObject({
  id: webhookIdSchema,
  ...pageParams(100, 20),
  status: z
    .enum(WEBHOOK_DELIVERY_STATUSES, { error: "must be pending, delivered or failed" })
    .optional()
    .meta({ description: "Only deliveries in this state." }),
});

export const deliveryListSchema = z
  .object({ deliveries: z.array(webhookDeliverySchema), next_cursor: z.string().nullable() })
  .meta({ id: "WebhookDeliveryList" });

export const retryDeliveryInputSchema = z.strictObject({
  id: webhookIdSchema,
  delivery_id: wholeNumberParam(1, Number.MAX_SAFE_INTEGER, "a delivery's id").meta({
    description: "The delivery's id, as the delivery log gives it.",
  }),
});

export type Webhook = z.infer<typeof webhookSchema>;
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;
