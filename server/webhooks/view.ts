// What the dashboard lists and offers; the browser loads it, so no zod and nothing server-only.

import type { WebhookEventType } from "@/db/enums";

export {
  WEBHOOK_DELIVERY_STATUSES,
  WEBHOOK_EVENT_TYPES,
  type WebhookEventType,
} from "@/db/enums";

/** What each event says, in a sentence: for the dashboard's event picker and the docs. */
export const WEBHOOK_EVENT_DESCRIPTIONS: Record<WebhookEventType, string> = {
  "run.succeeded": "An autonomous run finished with a reply.",
  "run.failed": "An autonomous run failed (the model or the database failed, or it was cut off).",
  "run.skipped": "An autonomous run was skipped (quota spent, or the run before it still going).",
  "agent.limit_reached":
    "A message, run or token limit of an agent refused its first use in the period.",
  "agent.created": "An agent was created.",
  "agent.updated": "An agent's configuration or limits were changed.",
  "agent.deleted": "An agent was deleted (the record as it was).",
  "deployment.status_changed": "A deployment moved to another status.",
  "tool_call.approval_requested":
    "A chat or run asked for a tool call that waits for a person's approval.",
  "audit.recorded":
    "An admin changed something: the audit log's new entry, as GET /audit shows it.",
  "webhook.test": "Sent to one endpoint when asked, to try it.",
};

/** How much of a receiver's answer the delivery log keeps and shows: its first bytes. */
export const RESPONSE_EXCERPT_BYTES = 200;

export { EVENT_BODY_MAX_BYTES, TRIMMED_MEMBER_MAX_BYTES } from "@/server/outbox/view";
