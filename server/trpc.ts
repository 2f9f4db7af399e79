import { initTRPC } from "@trpc/server";
import type { Context } from "@/server/context";
import { AppError, mapKnownError, problemFromError, toTRPCError } from "@/server/errors";

/**
 * The tRPC init module. It exports named builders only; the `t` object stays here.
 */
const t = initTRPC.context<Context>().create({
  errorFormatter({ shape, error }) {
    const problem = problemFromError(error);
    // The problem's detail replaces tRPC's message, so an unknown error's message never leaks.
    return {
      ...shape,
      message: problem.detail,
      data: { ...shape.data, stack: undefined, problem },
    };
  },
});

/** Turns domain errors (and an unreachable database) into TRPCErrors of the matching code. */
const mapDomainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) {
    const mapped = mapKnownError(result.error);
    if (mapped) throw mapped;
  }
  return result;
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

export const publicProcedure = t.procedure.use(mapDomainErrors);

/** Anyone signed in (a wallet or an admin): 401 otherwise. */
export const walletProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.session) {
    throw toTRPCError(
      new AppError(
        "unauthorized",
        "Sign in first: with a wallet (Sign-In with Ethereum) or the admin API key.",
      ),
    );
  }
  return next({ ctx: { ...ctx, session: ctx.session } });
});

/** Admin only: 401 without valid admin credentials, 403 for a wallet that is not an admin. */
export const adminProcedure = publicProcedure.use(({ ctx, next }) => {
  if (ctx.session && ctx.session.role !== "admin") {
    throw toTRPCError(new AppError("forbidden", "This needs an admin; your wallet is not one."));
  }
  if (ctx.session?.role !== "admin") {
    throw toTRPCError(
      ctx.credentials === "invalid"
        ? new AppError("unauthorized", "The admin API key is not valid.")
        : new AppError(
            "unauthorized",
            "This needs admin credentials: send the header 'Authorization: Bearer <ADMIN_API_KEY>'.",
          ),
    );
  }
  return next({ ctx: { ...ctx, session: ctx.session } });
});
