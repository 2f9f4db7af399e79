import { z } from "zod";
import { clearedSessionCookie, type Session, sessionCookie } from "@/server/auth/session";
import { signInWithKey, signInWithWallet } from "@/server/auth/sign-in";
import type { Context } from "@/server/context";
import { nonceInputSchema, nonceOutputSchema } from "@/server/deployments/schema";
import { issueNonce } from "@/server/siwe/nonces";
import { publicProcedure, router } from "@/server/trpc";

const sessionSchema = z
  .object({
    role: z.enum(["admin", "wallet"]),
    via: z.enum(["api_key", "wallet"]),
    address: z.string().optional(),
  })
  .nullable();

/** Sets the session cookie on the response (the /api/trpc path; REST clients use the API key). */
async function startSession(ctx: Context, session: Session): Promise<Session> {
  const claims =
    session.via === "wallet"
      ? { via: "wallet" as const, address: session.address }
      : { via: "api_key" as const };
  const secure = ctx.config.publicUrl.startsWith("https:");
  ctx.resHeaders?.append(
    "set-cookie",
    await sessionCookie(claims, { key: ctx.auth.sessionKey, secure, now: ctx.clock.now() }),
  );
  return session;
}

export const authRouter = router({
  /** A single-use nonce for a Sign-In with Ethereum message (sign-in or status update). */
  nonce: publicProcedure
    .input(nonceInputSchema)
    .output(nonceOutputSchema)
    .mutation(async ({ ctx, input }) => {
      const { nonce, expiresAt } = await issueNonce(ctx, input.user_address);
      return { nonce, user_address: input.user_address, expires_at: expiresAt.toISOString() };
    }),

  signIn: publicProcedure
    .input(
      z.strictObject({
        message: z.string().min(1).max(20_000),
        signature: z.string().regex(/^0x[0-9a-fA-F]+$/),
      }),
    )
    .output(sessionSchema)
    .mutation(async ({ ctx, input }) => startSession(ctx, await signInWithWallet(ctx, input))),

  signInWithKey: publicProcedure
    .input(z.strictObject({ key: z.string().min(1).max(1000) }))
    .output(sessionSchema)
    .mutation(({ ctx, input }) =>
      startSession(ctx, signInWithKey(input.key, ctx.auth.adminKeyMatches)),
    ),

  signOut: publicProcedure.output(z.null()).mutation(({ ctx }) => {
    ctx.resHeaders?.append(
      "set-cookie",
      clearedSessionCookie(ctx.config.publicUrl.startsWith("https:")),
    );
    return null;
  }),

  session: publicProcedure.output(sessionSchema).query(({ ctx }) => ctx.session),
});
