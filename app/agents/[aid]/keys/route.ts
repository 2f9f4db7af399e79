import { json, methodNotAllowed, readJsonBody, restRoute } from "@/server/http";

export const dynamic = "force-dynamic";

/** An agent's caller keys, without their secrets (admin). */
export const GET = restRoute<{ aid: string }>(async ({ caller, params }) =>
  json(await caller.keys.list({ aid: params.aid })),
);

/** A new key `{name}`: 201 with the key itself, shown this once. */
export const POST = restRoute<{ aid: string }>(async ({ request, caller, params }) => {
  const body = await readJsonBody(request);
  const fields = typeof body === "object" && body !== null && !Array.isArray(body) ? body : {};
  // The procedure validates; an `aid` in the body cannot name another agent than the path's.
  return json(await caller.keys.create({ ...fields, aid: params.aid } as never), 201);
});

export const PUT = methodNotAllowed(["GET", "POST"]);
export const PATCH = PUT;
export const DELETE = PUT;
