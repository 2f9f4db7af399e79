import type { z } from "zod";
import type { agentInputSchema } from "@/server/agents";
import { json, methodNotAllowed, queryParams, readJsonBody, restRoute } from "@/server/http";

export const dynamic = "force-dynamic";

const LIST_PARAMS = [
  "limit",
  "cursor",
  "q",
  "sort",
  "order",
  "quota",
  "autonomous",
  "include_total",
] as const;

export const GET = restRoute(async ({ request, caller }) =>
  json(await caller.agents.list(queryParams(request, LIST_PARAMS))),
);

export const POST = restRoute(async ({ request, caller }) => {
  // The procedure validates the body; here it is only parsed.
  const body = (await readJsonBody(request)) as z.input<typeof agentInputSchema>;
  const { created, agent } = await caller.agents.upsert(body);
  return json(agent, created ? 201 : 200);
});

export const PUT = methodNotAllowed(["GET", "POST"]);
export const PATCH = PUT;
export const DELETE = PUT;
