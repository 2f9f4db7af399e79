import { publicProcedure, router } from "@/server/frame/trpc";
import { databaseUnavailable, problem, rest } from "@/server/http";
import { issueNonce, nonceInputSchema, nonceOutputSchema } from "@/server/nonces";

/** GET /v1/nonce. */

export const noncesRouter = router({
  /** A single-use nonce for a Sign-In with Ethereum message (sign-in or status update). */
  issue: publicProcedure
    .meta(
      rest({
        method: "GET",
        path: "/v1/nonce",
        operationId: "getNonce",
        summary:
          "A single-use nonce for a Sign-In with Ethereum message; it expires after 10 minutes.",
        answers: { 200: { description: "The nonce." } },
        refusals: {
          400: problem("Missing or invalid address."),
          429: problem("rate_limited: this client address asked for too many nonces a minute."),
          503: databaseUnavailable,
        },
      }),
    )
    .input(nonceInputSchema)
    .output(nonceOutputSchema)
    .mutation(({ ctx, input }) => issueNonce(ctx, input.user_address)),
});
