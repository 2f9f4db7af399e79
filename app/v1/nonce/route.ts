import { json, methodNotAllowed, queryParams, restRoute } from "@/server/http";

export const dynamic = "force-dynamic";

/** A single-use nonce for a Sign-In with Ethereum message; it expires after 10 minutes. */
export const GET = restRoute(async ({ request, caller }) =>
  json(
    await caller.nonces.issue(queryParams(request, ["user_address"]) as { user_address: string }),
  ),
);

export const POST = methodNotAllowed(["GET"]);
export const PUT = POST;
export const PATCH = POST;
export const DELETE = POST;
