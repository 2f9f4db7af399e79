import { z } from "zod";
import { operatorProcedure, router, viewerProcedure } from "@/server/frame/trpc";
import { adminErrors, empty, jsonBodyErrors, problem, rest } from "@/server/http";
import {
  deletePrice,
  deletePriceInputSchema,
  listPrices,
  listPricesOutputSchema,
  priceSchema,
  setPrice,
  setPriceInputSchema,
} from "@/server/prices";
import * as examples from "./examples-admin";

/** The price table (admin). */

export const pricesRouter = router({
  list: viewerProcedure
    .meta(
      rest({
        method: "GET",
        path: "/prices",
        operationId: "listPrices",
        summary: "The price table: what a million input and output tokens of each model cost.",
        answers: { 200: { description: "Every price.", examples: examples.priceList } },
        refusals: { ...adminErrors },
      }),
    )
    .output(listPricesOutputSchema)
    .query(({ ctx }) => listPrices(ctx)),

  set: operatorProcedure
    .meta(
      rest({
        method: "PUT",
        path: "/prices/{model}",
        operationId: "setPrice",
        summary:
          "Set a model's price. Replies stored from now on are priced with it; stored costs stay as they were.",
        body: { required: true, examples: examples.setPrice },
        answers: { 200: { description: "The price.", examples: examples.price } },
        refusals: {
          400: problem("Invalid price or model name, or malformed JSON."),
          ...adminErrors,
          409: problem("The table is full (10,000 models)."),
          ...jsonBodyErrors,
        },
      }),
    )
    .input(setPriceInputSchema)
    .output(priceSchema)
    .mutation(({ ctx, input }) => setPrice(ctx, input)),

  delete: operatorProcedure
    .meta(
      rest({
        method: "DELETE",
        path: "/prices/{model}",
        operationId: "deletePrice",
        summary: "Remove a model's price: its replies from now on have no cost (null).",
        handle: async ({ call, input }) => {
          await call(input);
          return empty(204);
        },
        answers: { 204: { description: "Removed.", empty: true } },
        refusals: {
          400: problem(
            "Invalid model name (the NUL character, too long, a malformed percent-escape).",
          ),
          ...adminErrors,
          404: problem("The model has no price."),
        },
      }),
    )
    .input(deletePriceInputSchema)
    .output(z.void())
    .mutation(({ ctx, input }) => deletePrice(ctx, input.model)),
});
