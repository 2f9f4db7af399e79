import Negotiator from "negotiator";
import type { z } from "zod";
import type { chatInputSchema } from "@/server/chat";
import { rateLimitHeaders } from "@/server/chat";
import { json, methodNotAllowed, queryParams, restRoute, sseResponse } from "@/server/http";

export const dynamic = "force-dynamic";

// In order of preference when a client accepts several equally (curl sends */*).
const REPLY_TYPES = ["text/plain", "application/json", "text/event-stream"];

/** The question as the procedures take it; they validate it, here it is only collected. */
function chatInput(request: Request, aid: string) {
  return { aid, ...queryParams(request, ["q", "chat_id"]) } as z.input<typeof chatInputSchema>;
}

function replyType(request: Request): string {
  const accept = new Negotiator({ headers: { accept: request.headers.get("accept") ?? "*/*" } });
  return accept.mediaType(REPLY_TYPES) ?? "text/plain";
}

export const GET = restRoute<{ aid: string }>(async ({ request, caller, params }) => {
  const input = chatInput(request, params.aid);
  const type = replyType(request);
  if (type === "text/event-stream") {
    return sseResponse(await caller.chat.stream(input), request.signal, (first) =>
      rateLimitHeaders(first?.type === "start" ? first.rate_limit : undefined),
    );
  }
  const reply = await caller.chat.send(input);
  const limits = rateLimitHeaders(reply.rate_limit);
  if (type === "application/json") return json(reply, 200, limits);
  return new Response(reply.reply, {
    headers: {
      "content-type": "text/plain; charset=utf-8",
      "cache-control": "no-store",
      ...limits,
    },
  });
});

/**
 * HEAD answers what GET would for the request itself (400, 404, the reply's type) without
 * asking the model, counting a message or storing anything. Without it Next.js runs GET.
 */
export const HEAD = restRoute<{ aid: string }>(async ({ request, caller, params }) => {
  await caller.chat.check(chatInput(request, params.aid));
  const type = replyType(request);
  return new Response(null, {
    headers: {
      "content-type": type === "text/plain" ? "text/plain; charset=utf-8" : type,
      "cache-control": "no-store",
    },
  });
});

export const POST = methodNotAllowed(["GET", "HEAD"]);
export const PUT = POST;
export const PATCH = POST;
export const DELETE = POST;
