import { z } from "zod";
import { ADMIN_ROLES } from "@/server/admins";
import {
  clearedSessionCookie,
  endAllSessions,
  endSession,
  type SignedIn,
  signInWithKey,
  signInWithWallet,
} from "@/server/auth";
import type { Context } from "@/server/frame/context";
import { ownerProcedure, publicProcedure, router } from "@/server/frame/trpc";

const sessionSchema = z
  .object({
    role: z.enum([...ADMIN_ROLES, "wallet"]),
    via: z.enum(["api_key", "personal_key", "wallet", "oidc"]),
    address: z.string().optional(),
    /** Signed in with OIDC: the identity's email. */
    email: z.string().optional(),
    admin: z.string().optional(),
  })
  .nullable();

/** Gives the browser its session cookie (the /api/trpc path; REST clients use the API key). */
function setCookie(ctx: Context, { session, cookie }: SignedIn) {
  ctx.resHeaders?.append("set-cookie", cookie);
  return session;
}

const signInContext = (ctx: Context) => ({
  ...ctx,
  adminKeyMatches: ctx.auth.adminKeyMatches,
  adminKeyFingerprint: ctx.auth.adminKeyFingerprint,
});

export const authRouter = router({
  signIn: publicProcedure
    .input(
      z.strictObject({
        message: z.string().min(1).max(20_000),
        signature: z.string().regex(/^0x[0-9a-fA-F]+$/),
      }),
    )
    .output(sessionSchema)
    .mutation(async ({ ctx, input }) =>
      setCookie(ctx, await signInWithWallet(signInContext(ctx), input)),
    ),

  signInWithKey: publicProcedure
    .input(z.strictObject({ key: z.string().min(1).max(1000) }))
    .output(sessionSchema)
    .mutation(async ({ ctx, input }) =>
      setCookie(ctx, await signInWithKey(signInContext(ctx), input.key)),
    ),

  /** Ends this browser's session: its token stops working at once, on every instance. */
  signOut: publicProcedure.output(z.null()).mutation(async ({ ctx }) => {
    await endSession(ctx.db, ctx.sessionId);
    ctx.resHeaders?.append(
      "set-cookie",
      clearedSessionCookie(ctx.config.publicUrl.startsWith("https:")),
    );
    return null;
  }),

  endAllSessions: ownerProcedure
    .output(z.object({ ended: z.int() }))
    .mutation(async ({ ctx }) => ({ ended: await endAllSessions(ctx) })),

  session: publicProcedure.output(sessionSchema).query(({ ctx }) => ctx.session),
});
