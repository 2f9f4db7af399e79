import { json, methodNotAllowed, queryParams, restRoute } from "@/server/http";

export const dynamic = "force-dynamic";

/** An agent's autonomous runs, newest first (admin). */
export const GET = restRoute<{ aid: string }>(async ({ request, caller, params }) =>
  json(await caller.runs.list({ aid: params.aid, ...queryParams(request, ["limit", "cursor"]) })),
);

/** Runs the agent's autonomous prompt now, outside its schedule (admin): 202 with the run. */
export const POST = restRoute<{ aid: string }>(async ({ caller, params }) =>
  json(await caller.runs.runNow({ aid: params.aid }), 202),
);

export const PUT = methodNotAllowed(["GET", "POST"]);
export const PATCH = PUT;
export const DELETE = PUT;
