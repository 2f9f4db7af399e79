import { z } from "zod";
import { adminProcedure, router } from "@/server/frame/trpc";
import {
  deletePrice,
  deletePriceInputSchema,
  listPrices,
  listPricesOutputSchema,
  priceSchema,
  setPrice,
  setPriceInputSchema,
} from "@/server/prices";

export const pricesRouter = router({
  list: adminProcedure.output(listPricesOutputSchema).query(({ ctx }) => listPrices(ctx)),

  set: adminProcedure
    .input(setPriceInputSchema)
    .output(priceSchema)
    .mutation(({ ctx, input }) => setPrice(ctx, input)),

  delete: adminProcedure
    .input(deletePriceInputSchema)
    .output(z.void())
    .mutation(({ ctx, input }) => deletePrice(ctx, input.model)),
});
