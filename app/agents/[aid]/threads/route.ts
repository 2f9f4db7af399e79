import { json, methodNotAllowed, queryParams, restRoute } from "@/server/http";

export const dynamic = "force-dynamic";

/** The agent's threads of every caller, most recently active first (admin, keyset pages). */
export const GET = restRoute<{ aid: string }>(async ({ request, caller, params }) =>
  json(
    await caller.threads.list({
      aid: params.aid,
      ...queryParams(request, ["caller", "limit", "cursor"]),
    } as never),
  ),
);

export const POST = methodNotAllowed(["GET"]);
export const PUT = POST;
export const PATCH = POST;
export const DELETE = POST;
