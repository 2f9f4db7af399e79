import { json, methodNotAllowed, restRoute } from "@/server/http";

export const dynamic = "force-dynamic";

/** The agent's MCP servers with the tools each describes now (admin). */
export const GET = restRoute<{ aid: string }>(async ({ caller, params }) =>
  json(await caller.tools.list({ aid: params.aid })),
);

export const POST = methodNotAllowed(["GET"]);
export const PUT = POST;
export const PATCH = POST;
export const DELETE = POST;
