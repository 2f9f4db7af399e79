import { json, methodNotAllowed, restRoute } from "@/server/http";

export const dynamic = "force-dynamic";

/** One agent with its quota (admin). */
export const GET = restRoute<{ aid: string }>(async ({ caller, params }) =>
  json(await caller.agents.get({ aid: params.aid })),
);

/** Deletes the agent with its threads, runs and keys (admin): 204; the aid is free again. */
export const DELETE = restRoute<{ aid: string }>(async ({ caller, params }) => {
  await caller.agents.delete({ aid: params.aid });
  return new Response(null, { status: 204, headers: { "cache-control": "no-store" } });
});

export const POST = methodNotAllowed(["GET", "DELETE"]);
export const PUT = POST;
export const PATCH = POST;
