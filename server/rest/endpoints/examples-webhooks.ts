import {
  createdWebhookSchema,
  createWebhookInputSchema,
  deliveryListSchema,
  updateWebhookInputSchema,
  webhookListSchema,
} from "@/server/webhooks";
import { example, problemSchema } from "../documented";

/** Real requests and answers of the service for webhooks. */

const WEBHOOK = {
  id: "wh_5f0c7a39d1e24b86",
  url: "https://hooks.example.com/agent-service",
  description: "Ops alerts",
  events: ["run.failed", "agent.limit_reached"] as ("run.failed" | "agent.limit_reached")[],
  enabled: true,
  disabled_reason: null,
  failing_since: null,
  created_at: "2026-11-24T09:14:02.512Z",
  updated_at: "2026-11-24T09:14:02.512Z",
};

export const createWebhook = {
  alerts: example(createWebhookInputSchema, "Failed runs and limits reached", {
    url: WEBHOOK.url,
    events: WEBHOOK.events,
    description: WEBHOOK.description,
  }),
};

export const createdWebhook = {
  made: example(createdWebhookSchema, "The endpoint, with its secret shown this once", {
    ...WEBHOOK,
    secret: "whsec_Hq0r2vJ3m8dJm0H0S4u1mW7dQp3rQXl3C2Zp6cJvE9o=",
  }),
};

export const webhookList = {
  one: example(webhookListSchema, "One endpoint", { webhooks: [WEBHOOK] }),
};

export const updateWebhook = {
  enable: example(updateWebhookInputSchema.omit({ id: true }), "Enable it again", {
    enabled: true,
  }),
};

export const deliveryList = {
  retried: example(deliveryListSchema, "A run.failed event, delivered at the second attempt", {
    deliveries: [
      {
        id: 42,
        webhook_id: "msg_8b1f6f5c2a0e4d7e9c3b5a1d2e4f6a8b",
        endpoint_id: WEBHOOK.id,
        event_type: "run.failed",
        status: "delivered",
        attempt_count: 2,
        next_attempt_at: null,
        created_at: "2026-11-24T09:20:00.031Z",
        finished_at: "2026-11-24T09:20:05.902Z",
        attempts: [
          {
            attempt: 1,
            at: "2026-11-24T09:20:00.120Z",
            status_code: 503,
            duration_ms: 12.4,
            response_excerpt: "upstream unavailable",
            error: "The endpoint answered HTTP 503.",
          },
          {
            attempt: 2,
            at: "2026-11-24T09:20:05.870Z",
            status_code: 200,
            duration_ms: 9.8,
            response_excerpt: null,
            error: null,
          },
        ],
        payload: {
          type: "run.failed",
          timestamp: "2026-11-24T09:20:00.031Z",
          data: {
            id: 7,
            aid: "support-bot",
            trigger: "schedule",
            due_at: "2026-11-24T09:20:00.000Z",
            started_at: "2026-11-24T09:20:00.004Z",
            finished_at: "2026-11-24T09:20:00.031Z",
            outcome: "failed",
            reply: null,
            error: "The model provider answered HTTP 500.",
            usage: null,
            tool_calls: [],
          },
        },
      },
    ],
    next_cursor: null,
  }),
};

export const noSuchWebhook = {
  unknown: example(problemSchema, "No such endpoint", {
    type: "about:blank",
    title: "Not Found",
    status: 404,
    detail: "There is no webhook endpoint 'wh_0000000000000000'.",
    code: "webhook_not_found",
    request_id: "0d6e7f1a-33c4-4a5b-9d0e-7f2a1b3c4d5e",
  }),
};

export const badUrl = {
  loopback: example(problemSchema, "A loopback address not listed", {
    type: "about:blank",
    title: "Bad Request",
    status: 400,
    detail:
      "The request has invalid fields: url is on a private, loopback or other non-public address, which WEBHOOK_ALLOWED_HOSTS does not list.",
    code: "validation_failed",
    errors: [
      {
        field: "url",
        detail:
          "is on a private, loopback or other non-public address, which WEBHOOK_ALLOWED_HOSTS does not list",
      },
    ],
    request_id: "5a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
  }),
};
