import { json, methodNotAllowed, queryParams, restRoute } from "@/server/http";

export const dynamic = "force-dynamic";

/**
 * A thread's messages, newest page first (admin). Threads belong to callers: `caller` (as the
 * thread list gives it) names whose; the admin's own when left out.
 */
export const GET = restRoute<{ aid: string; chat_id: string }>(
  async ({ request, caller, params }) =>
    json(
      await caller.threads.messages({
        aid: params.aid,
        chat_id: params.chat_id,
        ...queryParams(request, ["caller", "limit", "cursor"]),
      } as never),
    ),
);

export const POST = methodNotAllowed(["GET"]);
export const PUT = POST;
export const PATCH = POST;
export const DELETE = POST;
