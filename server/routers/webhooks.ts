import { z } from "zod";
import { operatorProcedure, router, viewerProcedure } from "@/server/frame/trpc";
import { adminErrors, empty, jsonBodyErrors, problem, rest } from "@/server/http";
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
import * as examples from "./examples-webhooks";

/** Webhook endpoints and their delivery logs (admin). */

const badId = problem("A bad id (the NUL character, too long, a malformed percent-escape).");
const notFound = { 404: problem("No such webhook endpoint.", examples.noSuchWebhook) };

export const webhooksRouter = router({
  create: operatorProcedure
    .meta(
      rest({
        method: "POST",
        path: "/webhooks",
        idempotent: true,
        operationId: "createWebhook",
        summary:
          "Add an endpoint that events are POSTed to, signed (Standard Webhooks); its secret is in the answer, and only there.",
        body: { required: true, examples: examples.createWebhook },
        status: 201,
        answers: { 201: { description: "Made.", examples: examples.createdWebhook } },
        refusals: {
          400: problem(
            "A bad url (not http or https, credentials in it, a non-public address WEBHOOK_ALLOWED_HOSTS does not list, a cloud metadata address) or events, or malformed JSON; `errors` names the field.",
            examples.badUrl,
          ),
          ...adminErrors,
          409: problem("There are as many endpoints as there may be (100)."),
          ...jsonBodyErrors,
        },
      }),
    )
    .input(createWebhookInputSchema)
    .output(createdWebhookSchema)
    .mutation(({ ctx, input }) => createWebhook(ctx, input)),

  list: viewerProcedure
    .meta(
      rest({
        method: "GET",
        path: "/webhooks",
        operationId: "listWebhooks",
        summary: "The webhook endpoints, oldest first, without their secrets.",
        answers: { 200: { description: "The endpoints.", examples: examples.webhookList } },
        refusals: { ...adminErrors },
      }),
    )
    .output(webhookListSchema)
    .query(({ ctx }) => listWebhooks(ctx)),

  get: viewerProcedure
    .meta(
      rest({
        method: "GET",
        path: "/webhooks/{id}",
        operationId: "getWebhook",
        summary: "One webhook endpoint, without its secret.",
        answers: { 200: { description: "The endpoint." } },
        refusals: { 400: badId, ...adminErrors, ...notFound },
      }),
    )
    .input(webhookIdInputSchema)
    .output(webhookSchema)
    .query(({ ctx, input }) => getWebhook(ctx, input.id)),

  update: operatorProcedure
    .meta(
      rest({
        method: "PATCH",
        path: "/webhooks/{id}",
        operationId: "updateWebhook",
        summary:
          "Change an endpoint's url, events or description, or enable or disable it (enabling one that was disabled for failing sends what is pending).",
        body: { required: true, examples: examples.updateWebhook },
        answers: { 200: { description: "The endpoint as it is now." } },
        refusals: {
          400: problem("A bad id, url or events, or malformed JSON; `errors` names the field."),
          ...adminErrors,
          ...notFound,
          ...jsonBodyErrors,
        },
      }),
    )
    .input(updateWebhookInputSchema)
    .output(webhookSchema)
    .mutation(({ ctx, input }) => updateWebhook(ctx, input)),

  delete: operatorProcedure
    .meta(
      rest({
        method: "DELETE",
        path: "/webhooks/{id}",
        operationId: "deleteWebhook",
        summary: "Delete an endpoint with its delivery log; what is pending is not sent.",
        handle: async ({ call, input }) => {
          await call(input);
          return empty(204);
        },
        answers: { 204: { description: "Deleted.", empty: true } },
        refusals: { 400: badId, ...adminErrors, ...notFound },
      }),
    )
    .input(webhookIdInputSchema)
    .output(z.void())
    .mutation(({ ctx, input }) => deleteWebhook(ctx, input.id)),

  rotateSecret: operatorProcedure
    .meta(
      rest({
        method: "POST",
        path: "/webhooks/{id}/rotate-secret",
        idempotent: true,
        operationId: "rotateWebhookSecret",
        summary: "A new signing secret, in the answer only; the old one signs nothing from now on.",
        answers: { 200: { description: "The endpoint with its new secret." } },
        refusals: { 400: badId, ...adminErrors, ...notFound },
      }),
    )
    .input(webhookIdInputSchema)
    .output(createdWebhookSchema)
    .mutation(({ ctx, input }) => rotateSecret(ctx, input.id)),

  deliveries: viewerProcedure
    .meta(
      rest({
        method: "GET",
        path: "/webhooks/{id}/deliveries",
        operationId: "listWebhookDeliveries",
        summary:
          "The endpoint's deliveries, newest first: each event's body, its state, and every attempt (status, duration, the first bytes of the answer).",
        answers: { 200: { description: "One page.", examples: examples.deliveryList } },
        refusals: {
          400: problem("A bad id, limit, cursor or status."),
          ...adminErrors,
          ...notFound,
        },
      }),
    )
    .input(listDeliveriesInputSchema)
    .output(deliveryListSchema)
    .query(({ ctx, input }) => listDeliveries(ctx, input)),

  retryDelivery: operatorProcedure
    .meta(
      rest({
        method: "POST",
        path: "/webhooks/{id}/deliveries/{delivery_id}/retry",
        operationId: "retryWebhookDelivery",
        summary:
          "Send a delivery again now, with the same webhook-id: one more attempt for a delivered or failed one, the next one brought forward for a pending one.",
        status: 202,
        answers: { 202: { description: "Queued: the delivery as it is now." } },
        refusals: {
          400: problem("A bad id or delivery_id."),
          ...adminErrors,
          404: problem("No such endpoint, or it has no such delivery."),
          409: problem("The endpoint is disabled: enable it first."),
        },
      }),
    )
    .input(retryDeliveryInputSchema)
    .output(webhookDeliverySchema)
    .mutation(({ ctx, input }) => retryDelivery(ctx, input)),

  test: operatorProcedure
    .meta(
      rest({
        method: "POST",
        path: "/webhooks/{id}/test",
        operationId: "testWebhook",
        summary:
          "Send the endpoint a webhook.test event (its data: the endpoint's record), whatever events it takes.",
        status: 202,
        answers: { 202: { description: "Queued: the delivery, sent within a poll." } },
        refusals: {
          400: badId,
          ...adminErrors,
          ...notFound,
          409: problem("The endpoint is disabled: enable it first."),
        },
      }),
    )
    .input(webhookIdInputSchema)
    .output(webhookDeliverySchema)
    .mutation(({ ctx, input }) => sendTestEvent(ctx, input.id)),
});
