import { methodNotAllowed, restRoute } from "@/server/http";

export const dynamic = "force-dynamic";

/** Revokes the key: refused at once by every instance (admin). */
export const DELETE = restRoute<{ aid: string; id: string }>(async ({ caller, params }) => {
  await caller.keys.revoke({ aid: params.aid, id: params.id });
  return new Response(null, { status: 204, headers: { "cache-control": "no-store" } });
});

export const GET = methodNotAllowed(["DELETE"]);
export const POST = GET;
export const PUT = GET;
export const PATCH = GET;
