/**
 * Signed webhooks: endpoints (a URL, the events it takes, a secret shown once), the outbox that
 * the statements making an event write to, the senders that deliver it (Standard Webhooks
 * signatures, retries with back-off, disabling an endpoint that fails for the whole window),
 * and the delivery log. This index is the folder's public surface: import the folder, not its
 * files (docs/architecture.md).
 */

export { afterFailure, giveUpTime, retryDelayMs } from "./backoff";
export {
  DELIVERY_LOG_DAYS,
  listDeliveries,
  presentDelivery,
  purgeOldDeliveries,
  retryDelivery,
  sendTestEvent,
} from "./deliveries";
export {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  presentWebhook,
  rotateSecret,
  updateWebhook,
  type WebhooksContext,
} from "./endpoints";
export { emitEvent, fanOutSql, subscribed } from "./outbox";
export * from "./schema";
export { webhookSecretKey } from "./secrets";
export { WebhookSender } from "./sender";
export { isNonPublicAddress } from "./target";
export * from "./view";
