import { ADMIN, adminErrors, jsonBodyErrors, problem } from "../documented";
import { endpoint } from "../endpoint";
import { empty } from "../response";
import * as examples from "./examples-admin";

export const priceEndpoints = [
  endpoint({
    method: "GET",
    path: "/prices",
    procedure: (p) => p.prices.list,
    operationId: "listPrices",
    summary: "The price table: what a million input and output tokens of each model cost.",
    security: ADMIN,
    answers: { 200: { description: "Every price.", examples: examples.priceList } },
    refusals: { ...adminErrors },
  }),
  endpoint({
    method: "PUT",
    path: "/prices/{model}",
    procedure: (p) => p.prices.set,
    operationId: "setPrice",
    summary:
      "Set a model's price. Replies stored from now on are priced with it; stored costs stay as they were.",
    security: ADMIN,
    body: { required: true, examples: examples.setPrice },
    answers: { 200: { description: "The price.", examples: examples.price } },
    refusals: {
      400: problem("Invalid price or model name, or malformed JSON."),
      ...adminErrors,
      409: problem("The table is full (10,000 models)."),
      ...jsonBodyErrors,
    },
  }),
  endpoint({
    method: "DELETE",
    path: "/prices/{model}",
    procedure: (p) => p.prices.delete,
    operationId: "deletePrice",
    summary: "Remove a model's price: its replies from now on have no cost (null).",
    security: ADMIN,
    handle: async ({ call, input }) => {
      await call(input);
      return empty(204);
    },
    answers: { 204: { description: "Removed.", empty: true } },
    refusals: {
      400: problem("Invalid model name (the NUL character, too long, a malformed percent-escape)."),
      ...adminErrors,
      404: problem("The model has no price."),
    },
  }),
];
