import { json, methodNotAllowed, readJsonBody, restRoute } from "@/server/http";

export const dynamic = "force-dynamic";

/** Sets counters back to 0 (admin): body `{"counters": [...]}`, or none for all of them. */
export const POST = restRoute<{ aid: string }>(async ({ request, caller, params }) => {
  const body = (await readJsonBody(request, { optional: true })) ?? {};
  const fields = typeof body === "object" && body !== null && !Array.isArray(body) ? body : {};
  // The procedure validates; the path's aid wins over one in the body.
  return json(await caller.agents.resetQuota({ ...fields, aid: params.aid } as never));
});

export const GET = methodNotAllowed(["POST"]);
export const PUT = GET;
export const PATCH = GET;
export const DELETE = GET;
