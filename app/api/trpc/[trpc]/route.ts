import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { createContext } from "@/server/context";
import { errorResponse, readLimitedText } from "@/server/http/rest";
import { appRouter } from "@/server/routers/app";

export const dynamic = "force-dynamic";

async function handler(request: Request) {
  let req = request;
  if (request.method === "POST") {
    // The fetch adapter has no body limit: hold tRPC calls to the REST API's 64 KiB too.
    try {
      const body = await readLimitedText(request);
      req = new Request(request.url, {
        method: "POST",
        headers: request.headers,
        body,
        signal: request.signal,
      });
    } catch (error) {
      return errorResponse(error);
    }
  }
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: ({ resHeaders }) => createContext({ headers: req.headers, resHeaders }),
    onError({ error, path }) {
      if (error.code === "INTERNAL_SERVER_ERROR") {
        console.error(`tRPC ${path ?? "?"} failed:`, error.cause ?? error);
      }
    },
  });
}

export { handler as GET, handler as POST };
