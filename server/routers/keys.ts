import { z } from "zod";
import { createKey, listKeys, revokeKey } from "@/server/keys/keys";
import {
  createdKeySchema,
  createKeyInputSchema,
  listKeysInputSchema,
  listKeysOutputSchema,
  revokeKeyInputSchema,
} from "@/server/keys/schema";
import { adminProcedure, router } from "@/server/trpc";

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
