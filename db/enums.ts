/**
 * Value sets that a column's CHECK constraint and the API's schemas share. Free of imports, so
 * that the dashboard's forms can use them without pulling in the database code.
 */

/** Who may chat with an agent: anyone, or only callers with one of its keys. */
export const CHAT_ACCESS = ["public", "key"] as const;

/** The deployment statuses (the interface's `Status`), in the order of a deployment's life. */
export const DEPLOYMENT_STATUSES = [
  "init",
  "pick_up",
  "deploying",
  "deployed",
  "generated_proof",
  "failed",
  "cancelled",
] as const;

export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];

/**
 * The events a webhook endpoint may subscribe to. `webhook.test` is not among them: it is sent
 * to one endpoint when asked (POST /webhooks/{id}/test), whatever it subscribes to.
 */
export const WEBHOOK_EVENT_TYPES = [
  "run.succeeded",
  "run.failed",
  "run.skipped",
  "agent.limit_reached",
  "agent.created",
  "agent.updated",
  "agent.deleted",
  "deployment.status_changed",
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number] | "webhook.test";

/** A delivery's state: being tried (or waiting for its next try), delivered, or given up. */
export const WEBHOOK_DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;

/** The path a logged chat came by: GET /{aid}/chat (or the dashboard's chat), or POST /v1/chat/completions. */
export const REQUEST_VIAS = ["chat", "completions"] as const;

export type RequestVia = (typeof REQUEST_VIAS)[number];
