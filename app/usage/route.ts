import { json, methodNotAllowed, queryParams, restRoute, usageCsv, wantsCsv } from "@/server/http";

export const dynamic = "force-dynamic";

/** Usage of every agent by day or hour, with the top agents (admin); CSV with `Accept: text/csv`. */
export const GET = restRoute(async ({ request, caller }) => {
  const usage = await caller.usage.all(
    queryParams(request, ["from", "to", "granularity", "top", "cursor"]) as never,
  );
  return wantsCsv(request) ? usageCsv(usage, "usage") : json(usage);
});

export const POST = methodNotAllowed(["GET"]);
export const PUT = POST;
export const PATCH = POST;
export const DELETE = POST;
