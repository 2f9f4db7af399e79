import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { SESSION_COOKIE } from "@/server/auth";
import { createContext } from "@/server/frame/context";
import { AppError } from "@/server/frame/errors";
import { getConfig } from "@/server/frame/services";
import { errorResponse, finish, readLimitedText } from "@/server/http";
import { withBody } from "@/server/instance";
import { log, requestIdOf } from "@/server/observability";
import { appRouter } from "@/server/routers";

export const dynamic = "force-dynamic";

/** More calls than a dashboard page batches at once; a bound on what one request can ask. */
const MAX_BATCH_SIZE = 20;

async function handler(request: Request) {
  const started = performance.now();
  const requestId = requestIdOf(request.headers);
  let callerKind: string | undefined;
  // Served by Next.js: an answer of the REST helpers gets its Web body here (`withBody`).
  const done = (response: Response) =>
    withBody(finish(request, response, { requestId, started, params: {}, caller: callerKind }));
  let req = request;
  if (request.method === "POST") {
    try {
      refuseCrossOrigin(request);
      // The fetch adapter has no body limit: hold tRPC calls to the REST API's bound too.
      const body = await readLimitedText(request);
      req = new Request(request.url, {
        method: "POST",
        headers: request.headers,
        body,
        signal: request.signal,
      });
    } catch (error) {
      return done(errorResponse(error, requestId));
    }
  }
  const response = await fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    maxBatchSize: MAX_BATCH_SIZE,
    createContext: async ({ resHeaders }) => {
      const context = await createContext({ headers: req.headers, resHeaders, requestId });
      callerKind = context.caller.kind;
      return context;
    },
    onError({ error, path }) {
      if (error.code === "INTERNAL_SERVER_ERROR") {
        log.error(
          { err: error.cause ?? error, request_id: requestId, procedure: path },
          "unexpected error",
        );
      }
    },
  });
  // Answers about one signed-in user: never kept by a cache on the way.
  response.headers.set("cache-control", "no-store");
  return done(response);
}

/**
 * A mutation carrying the session cookie must come from the dashboard's own origin: SameSite=Lax
 * does not stop a page of the same site (another port of this host) from sending the cookie.
 */
function refuseCrossOrigin(request: Request): void {
  const cookie = request.headers.get("cookie") ?? "";
  if (!cookie.includes(`${SESSION_COOKIE}=`)) return;
  const origin = request.headers.get("origin");
  const host = request.headers.get("host");
  const allowed = [new URL(getConfig().publicUrl).origin, `http://${host}`, `https://${host}`];
  if (origin && allowed.includes(origin)) return;
  throw new AppError(
    "forbidden",
    origin
      ? `A signed-in change must come from the dashboard itself, not from ${origin}.`
      : "A signed-in change must come from the dashboard itself (the request has no Origin).",
  );
}

export { handler as GET, handler as POST };
