import { chatInputSchema } from "@/server/chat";
import { mappedStream, publicProcedure, router } from "@/server/frame/trpc";
import {
  type EventFormat,
  json,
  openAiError,
  openAiErrorSchema,
  openAiRateLimitHeaders,
  openAiRefusal,
  rest,
  sseResponse,
} from "@/server/http";
import { outlivingItsClient } from "@/server/instance";
import { parsedSynchronously } from "@/server/kit/zod-internals";
import {
  beginBackgroundChat,
  beginBackgroundResponse,
  cancelResponse,
  createResponse,
  deletedResponseSchema,
  deleteResponse,
  followResponse,
  getResponse,
  inputItemListSchema,
  inputItemsInputSchema,
  listInputItems,
  type NumberedEvent,
  type ResponseEvent,
  type ResponseResult,
  responseIdInputSchema,
  responseObjectSchema,
  responseReadInputSchema,
  responseRequestSchema,
  responseResultSchema,
  streamResponse,
} from "@/server/responses";
import { COMPLETION_BODY_MAX_BYTES, OPENAI_CHAT_REFUSALS } from "./completions";
import * as examples from "./examples-responses";
import { ANYONE_OR_KEY } from "./openai-models";

/**
 * POST /v1/responses and the reads of a kept response: an agent through OpenAI's Responses API.
 * Refusals in OpenAI's error form; a failure after the stream has started is its `error` event.
 */

/**
 * OpenAI's typed events, numbered in the order they are sent. A failure after response.created
 * is `response.failed` (the response, failed, with its error), as OpenAI's own; before it, `error`.
 */
function responseEvents(): EventFormat<ResponseEvent> {
  let sequence = 0;
  let begun: Record<string, unknown> | undefined;
  const framed = (data: Record<string, unknown>) =>
    `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
  return {
    frame: ({ type, ...data }) => {
      if (type === "start") return undefined;
      if (type === "response.created")
        begun = (data as { response: Record<string, unknown> }).response;
      return framed({ type, sequence_number: sequence++, ...data });
    },
    failure: (problem) => {
      const { code, message, param } = openAiError(problem).error;
      if (!begun)
        return framed({ type: "error", sequence_number: sequence++, code, message, param });
      const response = {
        ...begun,
        status: "failed",
        error: { code: code ?? "server_error", message },
      };
      return framed({ type: "response.failed", sequence_number: sequence++, response });
    },
  };
}

/** Events numbered where they were made (a background response's): framed as they are. */
function numberedEvents(): EventFormat<NumberedEvent> {
  let last = -1;
  return {
    frame: (event) => {
      last = event.sequence_number;
      return `event: ${event.type}\ndata: ${event.json}\n\n`;
    },
    failure: (problem) => {
      const { code, message, param } = openAiError(problem).error;
      const data = { type: "error", sequence_number: last + 1, code, message, param };
      return `event: error\ndata: ${JSON.stringify(data)}\n\n`;
    },
  };
}

type Begun = ResponseResult & { events?: AsyncIterable<NumberedEvent> };

const request = parsedSynchronously(responseRequestSchema);
const notKept = {
  description:
    "not_found: no such response is kept for this caller (it was not stored, was deleted, or is another caller's).",
  content: { "application/json": { schema: openAiErrorSchema } },
};

export const responsesRouter = router({
  create: publicProcedure
    .meta(
      rest<ResponseResult>({
        method: "POST",
        path: "/v1/responses",
        idempotent: true,
        operationId: "createResponse",
        summary:
          "Ask an agent through OpenAI's Responses API (`model` is its aid), streamed or not.",
        description:
          "The same access, caller, rate limit, message quota, token budgets, tools and metrics as GET /{aid}/chat: one response is one message. `input` is the question, or messages ending with the user's; `instructions` go to the model after the agent's own, which they never replace, and are not carried over; `previous_response_id` continues a kept response of this caller and agent (its conversation comes first, the oldest responses dropped whole past COMPLETIONS_MAX_INPUT_CHARS). The response is kept unless `store` is false; the exchange is also kept in the caller's thread `responses`. temperature, top_p and max_output_tokens (at most LLM_MAX_OUTPUT_TOKENS) go to the model; metadata is kept and returned. Client tools, reasoning, include, text formats other than text and any field not listed are refused with 400 naming it. With stream: true the answer is OpenAI's typed events (response.created, response.in_progress, response.output_item.added, response.content_part.added, response.output_text.delta, response.output_text.done, response.content_part.done, response.output_item.done, response.completed, each with its sequence_number), or an `error` event on a failure after the start. With background: true (and store) it is answered on after the request ends, counted once: the answer is the response `in_progress`, or with stream: true its events, which a client may leave and follow again from any instance with GET /v1/responses/{id}?stream=true&starting_after=N; POST /v1/responses/{id}/cancel stops it.",
        security: ANYONE_OR_KEY,
        errors: "openai",
        body: {
          required: true,
          maxBytes: COMPLETION_BODY_MAX_BYTES,
          examples: examples.responseRequest,
        },
        handle: async ({ request: http, callProcedure, input, call }) => {
          if (input.background === true) {
            const begun = (await callProcedure("responses.background", input)) as Begun;
            const headers = openAiRateLimitHeaders(begun.rate_limit);
            if (!begun.events) return json(begun.response, 200, headers);
            // The client's leaving ends its stream, not the response.
            return outlivingItsClient(
              await sseResponse(begun.events, http.signal, () => headers, numberedEvents()),
            );
          }
          if (input.stream === true) {
            const events = (await callProcedure(
              "responses.stream",
              input,
            )) as AsyncIterable<ResponseEvent>;
            return sseResponse<ResponseEvent>(
              events,
              http.signal,
              (first) =>
                openAiRateLimitHeaders(first?.type === "start" ? first.rate_limit : undefined),
              responseEvents(),
            );
          }
          const { response, rate_limit } = await call(input);
          return json(response, 200, openAiRateLimitHeaders(rate_limit));
        },
        answers: {
          200: {
            description: "The response, or (stream: true) its events.",
            schema: responseObjectSchema,
            examples: examples.response,
            content: {
              "text/event-stream": { schema: { type: "string" }, examples: examples.events },
            },
          },
        },
        refusals: {
          400: openAiRefusal(
            "A field that is missing, invalid or not taken (named in `param`), an input that does not end with a user message, a previous_response_id that is no kept response of this caller and agent, max_output_tokens above the service's limit, or malformed JSON. No quota is used.",
          ),
          ...OPENAI_CHAT_REFUSALS,
        },
      }),
    )
    .input(request)
    .output(parsedSynchronously(responseResultSchema))
    .mutation(({ ctx, input, signal }) => createResponse(ctx, input, signal)),

  /** The response as it is produced; no `.output()`, as for chat.stream. */
  stream: publicProcedure
    .input(request)
    .mutation(({ ctx, input, signal }) => mappedStream(streamResponse(ctx, input, signal))),

  /** A background response begun, and (stream: true) its events to follow from the first. */
  background: publicProcedure.input(request).mutation(async ({ ctx, input, signal }) => {
    const { run, ...begun } = await beginBackgroundResponse(ctx, input);
    return input.stream
      ? { ...begun, events: run.follow(-1, signal ?? new AbortController().signal) }
      : begun;
  }),

  /** GET /{aid}/chat with `Prefer: respond-async`: the chat begun in the background. */
  backgroundChat: publicProcedure
    .input(parsedSynchronously(chatInputSchema))
    .mutation(async ({ ctx, input }) => {
      const { run: _run, ...begun } = await beginBackgroundChat(ctx, input);
      return begun;
    }),

  /** A background response's events after `starting_after`, to its end. */
  events: publicProcedure
    .input(responseReadInputSchema)
    .query(async ({ ctx, input, signal }) =>
      mappedStream(await followResponse(ctx, input, signal ?? new AbortController().signal)),
    ),

  get: publicProcedure
    .meta(
      rest({
        method: "GET",
        path: "/v1/responses/{id}",
        operationId: "getResponse",
        summary:
          "A kept response of this caller as it stands, or (stream=true) a background response's events.",
        description:
          "A background response is `in_progress` until it ends `completed`, `failed` or `cancelled`. With stream=true its events are sent from the first, or from the one after `starting_after` (the sequence_number of the last one received), then as they come, to its end: from any instance, whichever answers it.",
        security: ANYONE_OR_KEY,
        errors: "openai",
        handle: async ({ request: http, callProcedure, input, call }) => {
          if (input.stream !== "true") return json(await call(input));
          const events = (await callProcedure(
            "responses.events",
            input,
          )) as AsyncIterable<NumberedEvent>;
          return sseResponse(events, http.signal, () => ({}), numberedEvents());
        },
        answers: {
          200: {
            description: "The response, or (stream=true) its events.",
            content: { "text/event-stream": { schema: { type: "string" } } },
          },
        },
        refusals: {
          400: openAiRefusal(
            "An id that cannot be one, or stream=true for a response that was not a background one.",
          ),
          404: notKept,
        },
      }),
    )
    .input(responseReadInputSchema)
    .output(responseObjectSchema)
    .query(({ ctx, input }) => getResponse(ctx, input.id)),

  cancel: publicProcedure
    .meta(
      rest({
        method: "POST",
        path: "/v1/responses/{id}/cancel",
        operationId: "cancelResponse",
        summary: "Cancels a background response of this caller, whichever instance answers it.",
        description:
          "Its model call is stopped within a second and its message given back; the answer is the response once it has ended: `cancelled`, or as it ended first. A response that has ended is answered as it is.",
        security: ANYONE_OR_KEY,
        errors: "openai",
        answers: { 200: { description: "The response." } },
        refusals: {
          400: openAiRefusal(
            "An id that cannot be one, or a response that was not a background one.",
          ),
          404: notKept,
        },
      }),
    )
    .input(responseIdInputSchema)
    .output(responseObjectSchema)
    .mutation(({ ctx, input }) => cancelResponse(ctx, input.id)),

  delete: publicProcedure
    .meta(
      rest({
        method: "DELETE",
        path: "/v1/responses/{id}",
        operationId: "deleteResponse",
        summary: "Deletes a kept response of this caller (its exchange stays in its thread).",
        security: ANYONE_OR_KEY,
        errors: "openai",
        answers: { 200: { description: "It is deleted." } },
        refusals: { 400: openAiRefusal("An id that cannot be one."), 404: notKept },
      }),
    )
    .input(responseIdInputSchema)
    .output(deletedResponseSchema)
    .mutation(({ ctx, input }) => deleteResponse(ctx, input.id)),

  inputItems: publicProcedure
    .meta(
      rest({
        method: "GET",
        path: "/v1/responses/{id}/input_items",
        operationId: "listResponseInputItems",
        summary: "The input messages of a kept response of this caller, a page at a time.",
        description:
          "Newest first by default (`order`); pass a page's `last_id` as `after` while `has_more` is true.",
        security: ANYONE_OR_KEY,
        errors: "openai",
        answers: { 200: { description: "A page of input messages." } },
        refusals: { 400: openAiRefusal("A parameter out of its range."), 404: notKept },
      }),
    )
    .input(inputItemsInputSchema)
    .output(inputItemListSchema)
    .query(({ ctx, input }) => listInputItems(ctx, input)),
});
