// Shared by CHECK constraints and the API's schemas; free of imports, so the dashboard can load it.

export const CHAT_ACCESS = ["public", "key"] as const;

/** An admin's roles, lowest first: each may do all the ones before it may. */
export const ADMIN_ROLES = ["viewer", "operator", "owner"] as const;

export type AdminRole = (typeof ADMIN_ROLES)[number];

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

/** Subscribable events; `webhook.test` is sent to one endpoint on request, whatever it takes. */
export const WEBHOOK_EVENT_TYPES = [
  "run.succeeded",
  "run.failed",
  "run.skipped",
  "agent.limit_reached",
  "agent.created",
  "agent.updated",
  "agent.deleted",
  "deployment.status_changed",
  "tool_call.approval_requested",
  "audit.recorded",
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number] | "webhook.test";

export const WEBHOOK_DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;

/** The way a logged chat came in: /{aid}/chat, /v1/chat/completions, /{aid}/mcp, /v1/responses, /{aid}/a2a. */
export const REQUEST_VIAS = ["chat", "completions", "mcp", "responses", "a2a"] as const;

export type RequestVia = (typeof REQUEST_VIAS)[number];
