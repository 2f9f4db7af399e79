import { readiness } from "@/server/health";
import { finish, json, methodNotAllowed } from "@/server/http";
import { requestIdOf } from "@/server/observability";
import { getServices } from "@/server/services";

export const dynamic = "force-dynamic";

/** Readiness: 200 when the database answers and the instance is not draining, else 503. */
export async function GET(request: Request): Promise<Response> {
  const started = performance.now();
  const services = await getServices().catch(() => undefined);
  const probe = await readiness(services?.database.db);
  const ready = probe.status === "ready";
  return finish(request, json(probe, ready ? 200 : 503, ready ? {} : { "retry-after": "5" }), {
    requestId: requestIdOf(request.headers),
    started,
    params: {},
  });
}

export const POST = methodNotAllowed(["GET"]);
export const PUT = POST;
export const PATCH = POST;
export const DELETE = POST;
