import { initTRPC } from "@trpc/server";
import { type AdminRole, roleAtLeast } from "@/server/admins";
import { isAdmin, tooManyAttempts } from "@/server/auth";
import type { Context } from "@/server/frame/context";
import { AppError, mapKnownError, problemFromError, toTRPCError } from "@/server/frame/errors";
import type { ProcedureMeta } from "@/server/http";

// Exports named builders only; the `t` object stays here. A procedure's meta holds its access
// (set by the builder) and its REST operation, if it has one.
const t = initTRPC
  .context<Context>()
  .meta<ProcedureMeta>()
  .create({
    errorFormatter({ shape, error, ctx }) {
      const found = problemFromError(error);
      const problem = ctx?.requestId ? { ...found, request_id: ctx.requestId } : found;
      // The problem's detail replaces tRPC's message, so an unknown error's message never leaks.
      return {
        ...shape,
        message: problem.detail,
        data: { ...shape.data, stack: undefined, problem },
      };
    },
  });

const mapDomainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) {
    const mapped = mapKnownError(result.error);
    if (mapped) throw mapped;
  }
  return result;
});

/**
 * A streamed procedure's events with their failures mapped: a generator fails while tRPC reads
 * it, after the middleware has returned, so a refusal would reach the client as a 500. Not a
 * generator of its own, as `yield*` would cost every event one more resumption.
 */
export function mappedStream<T>(
  events: AsyncGenerator<T, void, undefined>,
): AsyncGenerator<T, void, undefined> {
  const mapped = (error: unknown): never => {
    throw mapKnownError(error) ?? error;
  };
  const stream: AsyncGenerator<T, void, undefined> = {
    next: (...args) => events.next(...args).catch(mapped),
    return: (value) => events.return(value).catch(mapped),
    throw: (error) => events.throw(error).catch(mapped),
    [Symbol.asyncIterator]: () => stream,
    [Symbol.asyncDispose]: async () => {
      await stream.return();
    },
  };
  return stream;
}

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

export const publicProcedure = t.procedure.meta({ access: "public" }).use(mapDomainErrors);

/** A client blocked for wrong keys gets 429 wherever credentials are needed. */
function refuseThrottled(ctx: Context): void {
  if (ctx.credentials === "throttled") throw toTRPCError(tooManyAttempts(ctx.throttledForS ?? 1));
}

/** Anyone signed in (a wallet or an admin): 401 otherwise. */
export const walletProcedure = publicProcedure.meta({ access: "wallet" }).use(({ ctx, next }) => {
  refuseThrottled(ctx);
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

const ROLE_WORK: Record<AdminRole, string> = {
  viewer: "reading what admins read",
  operator: "changing agents, keys, quotas, prices, webhooks and deployments",
  owner: "changing admins and roles, and signing everyone out",
};

/** Why an admin whose role is below `needed` is refused (403), in the service's words. */
export function roleRefusal(needed: AdminRole, role: AdminRole): string {
  return `This needs the ${needed} role (${ROLE_WORK[needed]}); you are signed in as ${role === "viewer" ? "a viewer" : `an ${role}`}.`;
}

/**
 * Admins with at least `needed`: 401 without valid admin credentials, 403 for a wallet that is
 * no admin or an admin whose role is lower. The builder a procedure is made with is where it
 * declares the role it needs (tests/http/roles.test.ts walks every one).
 */
function adminProcedureFor(needed: AdminRole) {
  return publicProcedure.meta({ access: needed }).use(({ ctx, next }) => {
    refuseThrottled(ctx);
    const { session } = ctx;
    if (session && !isAdmin(session))
      throw toTRPCError(new AppError("forbidden", "This needs an admin; your wallet is not one."));
    if (!isAdmin(session)) {
      throw toTRPCError(
        ctx.credentials === "invalid"
          ? new AppError("unauthorized", "The admin API key is not valid.")
          : new AppError(
              "unauthorized",
              "This needs admin credentials: send the header 'Authorization: Bearer <ADMIN_API_KEY or your admin key>'.",
            ),
      );
    }
    if (!roleAtLeast(session.role, needed))
      throw toTRPCError(new AppError("forbidden", roleRefusal(needed, session.role)));
    return next({ ctx: { ...ctx, session } });
  });
}

/** Reads of what admins see: every admin. */
export const viewerProcedure = adminProcedureFor("viewer");
/** Changes to agents, keys, quotas, prices, webhooks and deployments. */
export const operatorProcedure = adminProcedureFor("operator");
/** Changes to admins and roles. */
export const ownerProcedure = adminProcedureFor("owner");
