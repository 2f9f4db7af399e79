import Negotiator from "negotiator";
import type { z } from "zod";
import type { chatInputSchema } from "@/server/chat/schema";
import { json, methodNotAllowed, queryParams, restRoute } from "@/server/http/rest";
import { sseResponse } from "@/server/http/sse";

export const dynamic = "force-dynamic";

// In order of preference when a client accepts several equally (curl sends */*).
const REPLY_TYPES = ["text/plain", "application/json", "text/event-stream"];

export const GET = restRoute<{ aid: string }>(async ({ request, caller, params }) => {
  // The procedure validates; here the query string is only collected.
  const input = { aid: params.aid, ...queryParams(request, ["q", "chat_id"]) } as z.input<
    typeof chatInputSchema
  >;
  const accept = new Negotiator({ headers: { accept: request.headers.get("accept") ?? "*/*" } });
  const type = accept.mediaType(REPLY_TYPES) ?? "text/plain";

  if (type === "text/event-stream") return sseResponse(await caller.chat.stream(input));
  const reply = await caller.chat.send(input);
  if (type === "application/json") return json(reply);
  return new Response(reply.reply, {
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
  });
});

export const POST = methodNotAllowed(["GET"]);
export const PUT = POST;
export const PATCH = POST;
export const DELETE = POST;
