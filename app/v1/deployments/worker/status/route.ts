import type { z } from "zod";
import type { statusUpdateInputSchema } from "@/server/deployments";
import { json, methodNotAllowed, readJsonBody, restRoute } from "@/server/http";

export const dynamic = "force-dynamic";

/** A worker changes a deployment's status with a signed Sign-In with Ethereum message. */
export const POST = restRoute(async ({ request, caller }) => {
  const body = (await readJsonBody(request)) as z.input<typeof statusUpdateInputSchema>;
  return json(await caller.deployments.updateStatus(body));
});

export const GET = methodNotAllowed(["POST"]);
export const PUT = GET;
export const PATCH = GET;
export const DELETE = GET;
