import {
  type ChatEvent,
  type ChatFrame,
  type ChatReply,
  cancelChat,
  cancelChatInputSchema,
  cancelChatOutputSchema,
  chatInputSchema,
  chatReplySchema,
  checkChat,
  parseEventId,
  rateLimitHeaders,
  replyText,
  resumeChatInputSchema,
  resumeChatStream,
  sendMessage,
  startChatStream,
  streamMessage,
} from "@/server/chat";
import { AppError } from "@/server/frame/errors";
import { mappedStream, publicProcedure, router } from "@/server/frame/trpc";
import {
  acceptedType,
  json,
  NO_STORE,
  namedEvents,
  problem,
  rest,
  sseResponse,
} from "@/server/http";
import { textResponse } from "@/server/instance";
import { parsedSynchronously } from "@/server/kit/zod-internals";
import { responseObjectSchema } from "@/server/responses";
import * as examples from "./examples-chat";

/**
 * GET /{aid}/chat: public, or with one of the agent's keys. Its HTTP is its own: the reply's
 * form is negotiated from Accept (text, JSON or server-sent events), and the caller's rate-limit
 * standing goes in headers.
 */

// In order of preference when a client accepts several equally (curl sends */*).
const REPLY_TYPES = ["text/plain", "application/json", "text/event-stream"];

const preferredReplyType = acceptedType(REPLY_TYPES);

function replyType(request: Request): string {
  return preferredReplyType(request) ?? "text/plain";
}

/** RFC 7240's `Prefer: respond-async`, among other preferences. */
function prefersAsync(request: Request): boolean {
  const prefer = request.headers.get("prefer");
  return prefer !== null && /(^|[,;\s])respond-async\s*($|[,;])/i.test(prefer);
}

const rateLimitHeaderDocs = {
  "X-RateLimit-Limit": {
    description: "Chats a minute this caller may send (absent when no limit applies).",
    schema: { type: "integer" as const },
  },
  "X-RateLimit-Remaining": { schema: { type: "integer" as const } },
  "X-RateLimit-Reset": {
    description: "Seconds until the caller's window ends.",
    schema: { type: "integer" as const },
  },
};

/** Public, or with one of the agent's keys (required when its chat_access is `key`). */
const PUBLIC_OR_AGENT_KEY: Record<string, string[]>[] = [{}, { agentKey: [] }];

const refusals = {
  400: problem(
    "Missing or invalid q or chat_id, or a bad aid (as for GET /agents/{aid}): no quota is used.",
  ),
  401: problem(
    "key_required: the agent takes chats from its keys only; invalid_key: the key sent (any bearer token that starts with `ak_`) is wrong or malformed, revoked, or another agent's.",
  ),
  404: problem("Unknown agent."),
};

const chatInput = parsedSynchronously(chatInputSchema);

/** A chat's frames as they are made (ids included); a failure after them in chat's form. */
const FRAMES = {
  frame: ({ frame }: ChatFrame) => frame,
  failure: namedEvents.failure,
};

export const chatRouter = router({
  /** Public, like GET /{aid}/chat: the agent's quota is what bounds it. */
  send: publicProcedure
    .meta(
      rest<ChatReply>({
        method: "GET",
        path: "/{aid}/chat",
        operationId: "chat",
        query: "open",
        summary: "Ask an agent; its reply as text, JSON or server-sent events (by Accept).",
        description:
          "Threads belong to their caller: a key, or the client address when there is none; the same chat_id of two callers is two threads. The caller's rate limit (the agent's rate_limit_rpm) is counted, then the message quota is reserved before the model is called and given back when the reply is not delivered. With Accept: text/event-stream the events are `start` {aid, chat_id, rate_limit}, `delta` {text} (repeated), with `tool_call` {id, step, server, name, arguments} and `tool_result` (a ToolCall: result or error, duration_ms) between deltas when the agent's model calls tools from its MCP servers, then `done` (the JSON reply) or `error` (a problem). Each event has an id, `<X-Request-Id>/<n>`: a client that leaves mid-stream and asks again with `Last-Event-ID` (as EventSource does, to any instance, within CHAT_RESUME_S) gets the events after it, then the rest as they come; a stream not resumed in that time is stopped and its message given back. text/plain gives the final text only. Tool failures (unreachable server, tool error, timeout) are given to the model, not the client: only a failure of the model fails the chat.",
        security: PUBLIC_OR_AGENT_KEY,
        handle: async ({ request, callProcedure, input, call }) => {
          if (prefersAsync(request)) {
            const begun = (await callProcedure("responses.backgroundChat", input)) as {
              response: { id: string };
              rate_limit: Parameters<typeof rateLimitHeaders>[0];
            };
            return json(begun.response, 202, {
              location: `/v1/responses/${begun.response.id}`,
              "preference-applied": "respond-async",
              ...rateLimitHeaders(begun.rate_limit),
            });
          }
          const type = replyType(request);
          if (type === "text/event-stream") {
            // A client back after it left (an EventSource reconnecting): the rest of its stream.
            const lastEventId = request.headers.get("last-event-id");
            if (lastEventId !== null) {
              const frames = (await callProcedure("chat.resume", {
                aid: input.aid,
                last_event_id: lastEventId,
              })) as AsyncIterable<ChatFrame>;
              return sseResponse(frames, request.signal, () => ({}), FRAMES);
            }
            const begun = (await callProcedure("chat.resumable", input)) as {
              first: ChatEvent;
              frames: AsyncIterable<ChatFrame>;
            };
            return sseResponse(
              begun.frames,
              request.signal,
              () =>
                rateLimitHeaders(begun.first.type === "start" ? begun.first.rate_limit : undefined),
              FRAMES,
            );
          }
          const reply = await call(input);
          const limits = rateLimitHeaders(reply.rate_limit);
          if (type === "application/json") return json(reply, 200, limits);
          return textResponse(replyText(reply), {
            headers: { "content-type": "text/plain; charset=utf-8", ...NO_STORE, ...limits },
          });
        },
        answers: {
          202: {
            description:
              "With `Prefer: respond-async`: the chat is begun in the background (counted once, answered on after the request ends) as a response; `Location` names it, to read with GET /v1/responses/{id} or follow with ?stream=true from any instance, and to cancel with POST /v1/responses/{id}/cancel.",
            schema: responseObjectSchema,
            examples: examples.begunInBackground,
            headers: {
              Location: { description: "/v1/responses/{id}", schema: { type: "string" as const } },
              ...rateLimitHeaderDocs,
            },
          },
          200: {
            description: "The reply.",
            headers: rateLimitHeaderDocs,
            examples: examples.reply,
            content: {
              "text/plain": { schema: { type: "string" }, examples: examples.replyText },
              "text/event-stream": { schema: { type: "string" }, examples: examples.replyEvents },
            },
          },
        },
        refusals: {
          ...refusals,
          429: {
            ...problem(
              "rate_limited: the caller's chats a minute are used up (no quota is used); quota_exceeded: the agent's message quota is. Retry-After says when it frees (none for a total quota).",
              examples.quotaExceeded,
            ),
            headers: rateLimitHeaderDocs,
          },
          502: problem("The model provider failed."),
          503: problem("Every model slot of this server is busy, or the database is unreachable."),
          504: problem("The model provider did not answer in time."),
        },
      }),
    )
    .input(chatInput)
    .output(parsedSynchronously(chatReplySchema))
    .mutation(({ ctx, input, signal }) => sendMessage(ctx, input, signal)),

  /**
   * The reply as it is produced (start, deltas, done). No `.output()`: tRPC would try to parse
   * the generator itself; the events are typed by `ChatEvent`. Refusals keep their status.
   */
  stream: publicProcedure
    .input(chatInput)
    .mutation(({ ctx, input, signal }) => mappedStream(streamMessage(ctx, input, signal))),

  cancel: publicProcedure
    .meta(
      rest({
        method: "POST",
        path: "/{aid}/chat/{request_id}/cancel",
        operationId: "cancelChat",
        summary:
          "Cancels a chat in flight (a chat, a completion, a response, an MCP or A2A call) by its answer's X-Request-Id, whichever instance answers it.",
        description:
          "For the caller that asked it (the same key, or the same client address for a public agent), or the admin for any. The instance answering it sees the cancel within a second and stops the model call and tools; the chat ends with 409 chat_cancelled (an `error` event on a stream), its message use given back, and the request log records it. Answers once it has stopped; 404 when no chat stopped within 2 s (it had ended, had not begun, or is another caller's).",
        security: PUBLIC_OR_AGENT_KEY,
        answers: { 200: { description: "The chat was stopped.", examples: examples.cancelled } },
        refusals: {
          400: problem("A bad aid or request id."),
          401: refusals[401],
          404: problem("No such agent, or no chat of it with this request id in flight for you."),
          429: problem("256 cancels of this caller already wait on this server."),
        },
      }),
    )
    .input(cancelChatInputSchema)
    .output(cancelChatOutputSchema)
    .mutation(async ({ ctx, input }) => {
      // The caller is checked as a chat would be: the agent's key, or anyone when it is public.
      await checkChat(ctx, input);
      return cancelChat(ctx, { aid: input.aid, requestId: input.request_id });
    }),

  /**
   * GET /{aid}/chat's stream: answered by a pump of its own, so that a client that leaves can
   * resume it (server/chat/resume.ts); the first event read here, so a refusal keeps its status.
   */
  resumable: publicProcedure.input(chatInput).mutation(async ({ ctx, input }) => {
    const controller = new AbortController();
    const events = streamMessage(ctx, input, controller.signal);
    const first = await events.next();
    if (first.done) throw new Error("A chat's stream ended before it began.");
    const requestId = ctx.requestId ?? crypto.randomUUID();
    const chat = { requestId, aid: input.aid, caller: ctx.caller };
    const stream = startChatStream(ctx, chat, first.value, events, controller);
    return { first: first.value, frames: mappedStream(stream.attached()) };
  }),

  /** GET /{aid}/chat with `Last-Event-ID`: the rest of a stream its caller left. */
  resume: publicProcedure.input(resumeChatInputSchema).mutation(async ({ ctx, input, signal }) => {
    await checkChat(ctx, input);
    const lastEventId = parseEventId(input.last_event_id);
    if (!lastEventId)
      throw new AppError(
        "validation_failed",
        "Last-Event-ID is not the id of an event of a chat's stream (`<request id>/<n>`).",
        { errors: [{ field: "Last-Event-ID", detail: "is not an event id of a chat's stream" }] },
      );
    const frames = await resumeChatStream(
      ctx,
      { aid: input.aid, lastEventId },
      signal ?? new AbortController().signal,
    );
    return mappedStream(frames);
  }),

  /** What HEAD /{aid}/chat answers: the question is valid and the agent exists; nothing else. */
  check: publicProcedure
    // HEAD answers what GET would for the request itself (400, 404, 401, the reply's type) without
    // asking the model, counting a message or storing anything. Without it Next.js runs GET.
    .meta(
      rest({
        method: "HEAD",
        path: "/{aid}/chat",
        operationId: "checkChat",
        query: "open",
        summary:
          "What GET would answer for the request itself (the question's validity, the agent, the caller's key, the reply's type), without asking the model or counting a message.",
        security: PUBLIC_OR_AGENT_KEY,
        handle: async ({ request, call, input }) => {
          await call(input);
          const type = replyType(request);
          return new Response(null, {
            headers: {
              "content-type": type === "text/plain" ? "text/plain; charset=utf-8" : type,
              ...NO_STORE,
            },
          });
        },
        answers: { 200: { description: "The chat would be taken.", empty: true } },
        refusals,
      }),
    )
    .input(chatInput)
    .query(({ ctx, input }) => checkChat(ctx, input)),
});
