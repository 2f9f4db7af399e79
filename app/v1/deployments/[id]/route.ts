import { json, methodNotAllowed, restRoute } from "@/server/http";

export const dynamic = "force-dynamic";

/** One deployment with its status history (admin). */
export const GET = restRoute<{ id: string }>(async ({ caller, params }) =>
  json(await caller.deployments.get({ id: params.id })),
);

export const POST = methodNotAllowed(["GET"]);
export const PUT = POST;
export const PATCH = POST;
export const DELETE = POST;
