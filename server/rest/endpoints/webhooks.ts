import { ADMIN, adminErrors, jsonBodyErrors, problem } from "../documented";
import { endpoint } from "../endpoint";
import { empty } from "../response";
import * as examples from "./examples-webhooks";

const badId = problem("A bad id (the NUL character, too long, a malformed percent-escape).");
const notFound = { 404: problem("No such webhook endpoint.", examples.noSuchWebhook) };

export const webhookEndpoints = [
  endpoint({
    method: "GET",
    path: "/webhooks",
    procedure: (p) => p.webhooks.list,
    operationId: "listWebhooks",
    summary: "The webhook endpoints, oldest first, without their secrets.",
    security: ADMIN,
    answers: { 200: { description: "The endpoints.", examples: examples.webhookList } },
    refusals: { ...adminErrors },
  }),
  endpoint({
    method: "POST",
    path: "/webhooks",
    procedure: (p) => p.webhooks.create,
    operationId: "createWebhook",
    summary:
      "Add an endpoint that events are POSTed to, signed (Standard Webhooks); its secret is in the answer, and only there.",
    security: ADMIN,
    body: { required: true, examples: examples.createWebhook },
    status: 201,
    answers: { 201: { description: "Made.", examples: examples.createdWebhook } },
    refusals: {
      400: problem(
        "A bad url (not http or https, credentials in it, a non-public address WEBHOOK_ALLOWED_HOSTS does not list) or events, or malformed JSON; `errors` names the field.",
        examples.badUrl,
      ),
      ...adminErrors,
      409: problem("There are as many endpoints as there may be (100)."),
      ...jsonBodyErrors,
    },
  }),
  endpoint({
    method: "GET",
    path: "/webhooks/{id}",
    procedure: (p) => p.webhooks.get,
    operationId: "getWebhook",
    summary: "One webhook endpoint, without its secret.",
    security: ADMIN,
    answers: { 200: { description: "The endpoint." } },
    refusals: { 400: badId, ...adminErrors, ...notFound },
  }),
  endpoint({
    method: "PATCH",
    path: "/webhooks/{id}",
    procedure: (p) => p.webhooks.update,
    operationId: "updateWebhook",
    summary:
      "Change an endpoint's url, events or description, or enable or disable it (enabling one that was disabled for failing sends what is pending).",
    security: ADMIN,
    body: { required: true, examples: examples.updateWebhook },
    answers: { 200: { description: "The endpoint as it is now." } },
    refusals: {
      400: problem("A bad id, url or events, or malformed JSON; `errors` names the field."),
      ...adminErrors,
      ...notFound,
      ...jsonBodyErrors,
    },
  }),
  endpoint({
    method: "DELETE",
    path: "/webhooks/{id}",
    procedure: (p) => p.webhooks.delete,
    operationId: "deleteWebhook",
    summary: "Delete an endpoint with its delivery log; what is pending is not sent.",
    security: ADMIN,
    handle: async ({ call, input }) => {
      await call(input);
      return empty(204);
    },
    answers: { 204: { description: "Deleted.", empty: true } },
    refusals: { 400: badId, ...adminErrors, ...notFound },
  }),
  endpoint({
    method: "POST",
    path: "/webhooks/{id}/rotate-secret",
    procedure: (p) => p.webhooks.rotateSecret,
    operationId: "rotateWebhookSecret",
    summary: "A new signing secret, in the answer only; the old one signs nothing from now on.",
    security: ADMIN,
    answers: { 200: { description: "The endpoint with its new secret." } },
    refusals: { 400: badId, ...adminErrors, ...notFound },
  }),
  endpoint({
    method: "GET",
    path: "/webhooks/{id}/deliveries",
    procedure: (p) => p.webhooks.deliveries,
    operationId: "listWebhookDeliveries",
    summary:
      "The endpoint's deliveries, newest first: each event's body, its state, and every attempt (status, duration, the first bytes of the answer).",
    security: ADMIN,
    answers: { 200: { description: "One page.", examples: examples.deliveryList } },
    refusals: {
      400: problem("A bad id, limit, cursor or status."),
      ...adminErrors,
      ...notFound,
    },
  }),
  endpoint({
    method: "POST",
    path: "/webhooks/{id}/deliveries/{delivery_id}/retry",
    procedure: (p) => p.webhooks.retryDelivery,
    operationId: "retryWebhookDelivery",
    summary:
      "Send a delivery again now, with the same webhook-id: one more attempt for a delivered or failed one, the next one brought forward for a pending one.",
    security: ADMIN,
    status: 202,
    answers: { 202: { description: "Queued: the delivery as it is now." } },
    refusals: {
      400: problem("A bad id or delivery_id."),
      ...adminErrors,
      404: problem("No such endpoint, or it has no such delivery."),
      409: problem("The endpoint is disabled: enable it first."),
    },
  }),
  endpoint({
    method: "POST",
    path: "/webhooks/{id}/test",
    procedure: (p) => p.webhooks.test,
    operationId: "testWebhook",
    summary:
      "Send the endpoint a webhook.test event (its data: the endpoint's record), whatever events it takes.",
    security: ADMIN,
    status: 202,
    answers: { 202: { description: "Queued: the delivery, sent within a poll." } },
    refusals: {
      400: badId,
      ...adminErrors,
      ...notFound,
      409: problem("The endpoint is disabled: enable it first."),
    },
  }),
];
