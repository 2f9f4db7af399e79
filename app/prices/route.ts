import { json, methodNotAllowed, restRoute } from "@/server/http";

export const dynamic = "force-dynamic";

/** The price table (admin). */
export const GET = restRoute(async ({ caller }) => json(await caller.prices.list()));

export const POST = methodNotAllowed(["GET"]);
export const PUT = POST;
export const PATCH = POST;
export const DELETE = POST;
