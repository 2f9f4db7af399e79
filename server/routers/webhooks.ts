import { z } from "zod";
import { adminProcedure, router } from "@/server/trpc";
import {
  createdWebhookSchema,
  createWebhook,
  createWebhookInputSchema,
  deleteWebhook,
  deliveryListSchema,
  getWebhook,
  listDeliveries,
  listDeliveriesInputSchema,
  listWebhooks,
  retryDelivery,
  retryDeliveryInputSchema,
  rotateSecret,
  sendTestEvent,
  updateWebhook,
  updateWebhookInputSchema,
  webhookDeliverySchema,
  webhookIdInputSchema,
  webhookListSchema,
  webhookSchema,
} from "@/server/webhooks";

export const webhooksRouter = router({
  create: adminProcedure
    .input(createWebhookInputSchema)
    .output(createdWebhookSchema)
    .mutation(({ ctx, input }) => createWebhook(ctx, input)),

  list: adminProcedure.output(webhookListSchema).query(({ ctx }) => listWebhooks(ctx)),

  get: adminProcedure
    .input(webhookIdInputSchema)
    .output(webhookSchema)
    .query(({ ctx, input }) => getWebhook(ctx, input.id)),

  update: adminProcedure
    .input(updateWebhookInputSchema)
    .output(webhookSchema)
    .mutation(({ ctx, input }) => updateWebhook(ctx, input)),

  delete: adminProcedure
    .input(webhookIdInputSchema)
    .output(z.void())
    .mutation(({ ctx, input }) => deleteWebhook(ctx, input.id)),

  rotateSecret: adminProcedure
    .input(webhookIdInputSchema)
    .output(createdWebhookSchema)
    .mutation(({ ctx, input }) => rotateSecret(ctx, input.id)),

  deliveries: adminProcedure
    .input(listDeliveriesInputSchema)
    .output(deliveryListSchema)
    .query(({ ctx, input }) => listDeliveries(ctx, input)),

  retryDelivery: adminProcedure
    .input(retryDeliveryInputSchema)
    .output(webhookDeliverySchema)
    .mutation(({ ctx, input }) => retryDelivery(ctx, input)),

  test: adminProcedure
    .input(webhookIdInputSchema)
    .output(webhookDeliverySchema)
    .mutation(({ ctx, input }) => sendTestEvent(ctx, input.id)),
});
