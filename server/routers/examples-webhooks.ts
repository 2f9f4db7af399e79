import { example, problemSchema } from "@/server/http";
import {
  createdWebhookSchema,
  createWebhookInputSchema,
  deliveryListSchema,
  updateWebhookInputSchema,
  webhookListSchema,
} from "@/server/webhooks";

// Real requests and answers of the service for webhooks (the receiver was on loopback; its URL is
// written here as the public one it stands for).

const WEBHOOK = {
  id: "wh_19526277b4e79c09",
  url: "https://hooks.example.com/agent-service",
  description: "Ops alerts",
  events: ["run.failed", "agent.limit_reached"] as ("run.failed" | "agent.limit_reached")[],
  enabled: true,
  disabled_reason: null,
  failing_since: null,
  created_at: "2026-11-25T21:49:44.358Z",
  updated_at: "2026-11-25T21:49:44.358Z",
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
    secret: "whsec_dgdIhivaIPr5CNZKkrSa0Xus9sSnse8GEd1JloTybGc=",
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
        id: 1,
        webhook_id: "msg_bfba9899ac4840b285b2e54404e22b8c",
        endpoint_id: WEBHOOK.id,
        event_type: "run.failed",
        status: "delivered",
        attempt_count: 2,
        next_attempt_at: null,
        created_at: "2026-11-25T21:49:44.427Z",
        finished_at: "2026-11-25T21:49:50.345Z",
        attempts: [
          {
            attempt: 1,
            at: "2026-11-25T21:49:44.521Z",
            status_code: 503,
            duration_ms: 10.2,
            response_excerpt: "upstream unavailable",
            error: "The endpoint answered HTTP 503.",
          },
          {
            attempt: 2,
            at: "2026-11-25T21:49:50.340Z",
            status_code: 200,
            duration_ms: 4.1,
            response_excerpt: null,
            error: null,
          },
        ],
        payload: {
          type: "run.failed",
          timestamp: "2026-11-25T21:49:44.427Z",
          data: {
            id: 1,
            aid: "support-bot",
            trigger: "manual",
            due_at: "2026-11-25T21:49:44.412Z",
            started_at: "2026-11-25T21:49:44.412Z",
            finished_at: "2026-11-25T21:49:44.427Z",
            outcome: "failed",
            reply: null,
            error: "The model provider failed (HTTP 500).",
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
    request_id: "1eb7fadd-878a-44d1-9d7f-5ed5e06b7778",
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
    request_id: "30010392-fdf8-4742-a129-7cccbaa94d1c",
  }),
};
