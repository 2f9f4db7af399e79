import { json, methodNotAllowed, queryParams, restRoute } from "@/server/http/rest";

export const dynamic = "force-dynamic";

/** An agent's autonomous runs, newest first (admin). */
export const GET = restRoute<{ aid: string }>(async ({ request, caller, params }) =>
  json(
    await caller.autonomous.runs({ aid: params.aid, ...queryParams(request, ["limit", "cursor"]) }),
  ),
);

export const POST = methodNotAllowed(["GET"]);
export const PUT = POST;
export const PATCH = POST;
export const DELETE = POST;
