import { timingSafeEqual } from "node:crypto";
import { bearerToken } from "@/server/auth";
import { createContext } from "@/server/context";
import { AppError } from "@/server/errors";
import { errorResponse, finish, methodNotAllowed } from "@/server/http";
import { MetricsUnavailableError, metricsText, requestIdOf } from "@/server/observability";
import { getConfig } from "@/server/services";

export const dynamic = "force-dynamic";

/**
 * Prometheus metrics, for the admin key or METRICS_TOKEN (a scraper's own token: it is checked
 * first, so a scraper never counts as a wrong admin key).
 */
export async function GET(request: Request): Promise<Response> {
  const started = performance.now();
  const requestId = requestIdOf(request.headers);
  let response: Response;
  try {
    if (!metricsTokenMatches(bearerToken(request.headers))) {
      const context = await createContext({ headers: request.headers, cookies: false, requestId });
      if (context.credentials === "throttled")
        throw new AppError("too_many_attempts", "Too many wrong keys from your address.", {
          retryAfterS: context.throttledForS ?? 1,
        });
      if (context.session?.role !== "admin") {
        throw new AppError(
          "unauthorized",
          "Metrics need the admin key or METRICS_TOKEN: send 'Authorization: Bearer <token>'.",
        );
      }
    }
    const { contentType, body } = await metricsText().catch((error: unknown) => {
      if (!(error instanceof MetricsUnavailableError)) throw error;
      throw new AppError("service_unavailable", error.message, { retryAfterS: 1 });
    });
    response = new Response(body, {
      headers: { "content-type": contentType, "cache-control": "no-store" },
    });
  } catch (error) {
    response = errorResponse(error, requestId);
  }
  return finish(request, response, { requestId, started, params: {} });
}

function metricsTokenMatches(presented: string | undefined): boolean {
  const token = getConfig().metricsToken;
  if (!token || presented === undefined) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

export const POST = methodNotAllowed(["GET"]);
export const PUT = POST;
export const PATCH = POST;
export const DELETE = POST;
