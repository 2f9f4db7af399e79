import { startedAt } from "@/server/context";
import {
  databaseUnavailable,
  embeddedDatabaseFailure,
  isDatabaseUnavailable,
} from "@/server/errors";
import { healthReport } from "@/server/health";
import { errorResponse, json, methodNotAllowed, restRoute } from "@/server/http";
import { providerName } from "@/server/providers";
import { getConfig, getServices } from "@/server/services";

export const dynamic = "force-dynamic";

const check = restRoute(async ({ caller }) => {
  const health = await caller.health.check();
  return json(health, health.status === "healthy" ? 200 : 503);
});

export async function GET(request: Request, route: { params: Promise<Record<string, never>> }) {
  try {
    await getServices();
  } catch (error) {
    // The database never opened (unreachable, or the embedded one locked by another process or
    // failing to open): still answer in the health format, so monitors can read it.
    if (!isDatabaseUnavailable(error)) return errorResponse(error);
    return json(
      healthReport(
        embeddedDatabaseFailure(error) === "locked" ? "locked" : "unreachable",
        {
          startedAt,
          now: new Date(),
          provider: providerName(getConfig().llm),
          databaseKind: getConfig().databaseUrl ? "postgres" : "pglite",
        },
        databaseUnavailable(error).detail,
      ),
      503,
    );
  }
  return check(request, route);
}

export const POST = methodNotAllowed(["GET"]);
export const PUT = POST;
export const PATCH = POST;
export const DELETE = POST;
