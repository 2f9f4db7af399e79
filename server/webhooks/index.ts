// Signed webhooks: endpoints, the outbox, the senders and the delivery log.

export { attemptDelivery } from "./attempt";
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
export * from "./schema";
export { webhookSecretKey } from "./secrets";
export { WebhookSender } from "./sender";
export * from "./view";
