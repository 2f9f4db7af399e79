import { json, methodNotAllowed, queryParams, restRoute, usageCsv, wantsCsv } from "@/server/http";

export const dynamic = "force-dynamic";

/** The agent's usage by day or hour (admin); CSV with `Accept: text/csv`. */
export const GET = restRoute<{ aid: string }>(async ({ request, caller, params }) => {
  const usage = await caller.usage.agent({
    aid: params.aid,
    ...queryParams(request, ["from", "to", "granularity"]),
  } as never);
  return wantsCsv(request) ? usageCsv(usage, `usage-${usage.aid}`) : json(usage);
});

export const POST = methodNotAllowed(["GET"]);
export const PUT = POST;
export const PATCH = POST;
export const DELETE = POST;
