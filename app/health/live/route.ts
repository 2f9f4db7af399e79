import { finish, json, methodNotAllowed } from "@/server/http";
import { requestIdOf } from "@/server/observability";

export const dynamic = "force-dynamic";

/** Liveness: 200 while the process runs; it asks nothing of the database. */
export function GET(request: Request): Response {
  const started = performance.now();
  return finish(request, json({ status: "live" }), {
    requestId: requestIdOf(request.headers),
    started,
    params: {},
  });
}

export const POST = methodNotAllowed(["GET"]);
export const PUT = POST;
export const PATCH = POST;
export const DELETE = POST;
