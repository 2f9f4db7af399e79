import type { z } from "zod";
import type { createDeploymentInputSchema } from "@/server/deployments";
import { json, methodNotAllowed, queryParams, readJsonBody, restRoute } from "@/server/http";

export const dynamic = "force-dynamic";

export const GET = restRoute(async ({ request, caller }) =>
  json(
    await caller.deployments.list(
      queryParams(request, [
        "limit",
        "cursor",
        "user_address",
        "status",
        "proposal_id",
        "include_total",
      ]),
    ),
  ),
);

export const POST = restRoute(async ({ request, caller }) => {
  const body = (await readJsonBody(request)) as z.input<typeof createDeploymentInputSchema>;
  return json(await caller.deployments.create(body), 201);
});

export const PUT = methodNotAllowed(["GET", "POST"]);
export const PATCH = PUT;
export const DELETE = PUT;
