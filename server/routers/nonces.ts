import { issueNonce, nonceInputSchema, nonceOutputSchema } from "@/server/nonces";
import { publicProcedure, router } from "@/server/trpc";

export const noncesRouter = router({
  /** A single-use nonce for a Sign-In with Ethereum message (sign-in or status update). */
  issue: publicProcedure
    .input(nonceInputSchema)
    .output(nonceOutputSchema)
    .mutation(({ ctx, input }) => issueNonce(ctx, input.user_address)),
});
