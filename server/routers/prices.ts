import { z } from "zod";
import { deletePrice, listPrices, setPrice } from "@/server/prices/prices";
import {
  deletePriceInputSchema,
  listPricesOutputSchema,
  priceSchema,
  setPriceInputSchema,
} from "@/server/prices/schema";
import { adminProcedure, router } from "@/server/trpc";

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
