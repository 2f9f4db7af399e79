import { z } from "zod";
import { adminProcedure, router } from "@/server/frame/trpc";
import {
  createdKeySchema,
  createKey,
  createKeyInputSchema,
  listKeys,
  listKeysInputSchema,
  listKeysOutputSchema,
  revokeKey,
  revokeKeyInputSchema,
} from "@/server/keys";

export const keysRouter = router({
  create: adminProcedure
    .input(createKeyInputSchema)
    .output(createdKeySchema)
    .mutation(({ ctx, input }) => createKey(ctx, input)),

  list: adminProcedure
    .input(listKeysInputSchema)
    .output(listKeysOutputSchema)
    .query(({ ctx, input }) => listKeys(ctx, input.aid)),

  revoke: adminProcedure
    .input(revokeKeyInputSchema)
    .output(z.void())
    .mutation(({ ctx, input }) => revokeKey(ctx, input)),
});
