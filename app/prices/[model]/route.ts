import { json, methodNotAllowed, readJsonBody, restRoute } from "@/server/http";

export const dynamic = "force-dynamic";

/** Sets a model's price, `{input_per_million, output_per_million}` (admin); replies from now on. */
export const PUT = restRoute<{ model: string }>(async ({ request, caller, params }) => {
  const body = await readJsonBody(request);
  const fields = typeof body === "object" && body !== null && !Array.isArray(body) ? body : {};
  // The procedure validates; a `model` in the body cannot name another model than the path's.
  return json(await caller.prices.set({ ...fields, model: params.model } as never));
});

/** Removes a model's price: its replies from now on have no cost (admin). */
export const DELETE = restRoute<{ model: string }>(async ({ caller, params }) => {
  await caller.prices.delete({ model: params.model });
  return new Response(null, { status: 204, headers: { "cache-control": "no-store" } });
});

export const GET = methodNotAllowed(["PUT", "DELETE"]);
export const POST = GET;
export const PATCH = GET;
