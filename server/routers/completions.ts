import {
  type CompletionEvent,
  type CompletionResult,
  chatCompletionSchema,
  completionRequestSchema,
  completionResultSchema,
  createCompletion,
  streamCompletion,
} from "@/server/completions";
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
import { parsedSynchronously } from "@/server/kit/zod-internals";
import * as examples from "./examples-completions";
import { ANYONE_OR_KEY } from "./openai-models";

/**
 * POST /v1/chat/completions: an agent asked as an OpenAI-compatible model, streamed or not.
 * Refusals in OpenAI's error form; a failure after the stream has started is a `data:` line
 * with the error object, which OpenAI's clients raise.
 */

/** A conversation is sent whole with every request: more room than other bodies' 64 KiB. */
export const COMPLETION_BODY_MAX_BYTES = 256 * 1024;

/** OpenAI's event stream: each chunk a bare `data:` line, then `data: [DONE]`. */
const openAiEvents: EventFormat<CompletionEvent> = {
  frame: (event) =>
    event.type === "chunk" ? `data: ${JSON.stringify(event.chunk)}\n\n` : undefined,
  failure: (problem) => `data: ${JSON.stringify(openAiError(problem))}\n\n`,
  end: "data: [DONE]\n\n",
};

const rateLimitHeaderDocs = {
  "x-ratelimit-limit-requests": {
    description: "Chats a minute this caller may send to the agent (absent when none applies).",
    schema: { type: "integer" as const },
  },
  "x-ratelimit-remaining-requests": { schema: { type: "integer" as const } },
  "x-ratelimit-reset-requests": {
    description: "When the caller's window ends, as OpenAI writes it (`12s`).",
    schema: { type: "string" as const },
  },
};

const completionRequest = parsedSynchronously(completionRequestSchema);

/** The refusals of a chat asked in OpenAI's terms: a completion's, and a response's. */
export const OPENAI_CHAT_REFUSALS = {
  401: openAiRefusal(
    "key_required: the agent takes chats from its keys only; invalid_api_key: the key sent (a bearer token that starts with `ak_`) is wrong, malformed, revoked, or another agent's.",
  ),
  403: openAiRefusal("agent_paused: the agent takes no chats while it is paused."),
  404: {
    description: "model_not_found: no agent has this id, or this caller may not chat with it.",
    content: {
      "application/json": { schema: openAiErrorSchema, examples: examples.modelNotFound },
    },
  },
  413: openAiRefusal(`The body is larger than ${COMPLETION_BODY_MAX_BYTES / 1024} KiB.`),
  415: openAiRefusal("The body is not sent as Content-Type: application/json."),
  429: {
    description:
      "rate_limit_exceeded (type requests): the caller's chats a minute are used up; quota_exceeded (type insufficient_quota): the agent's message quota or token budget is. Retry-After says when it frees; x-should-retry: false when that is more than a minute away or never.",
    headers: rateLimitHeaderDocs,
    content: {
      "application/json": { schema: openAiErrorSchema, examples: examples.quotaExceeded },
    },
  },
  502: openAiRefusal("The model provider failed."),
  503: openAiRefusal("Every model slot of this server is busy, or the database is unreachable."),
  504: openAiRefusal("The model provider did not answer in time."),
};

export const completionsRouter = router({
  /** Public, like GET /{aid}/chat: the agent's access rule and quota are what bound it. */
  create: publicProcedure
    .meta(
      rest<CompletionResult>({
        method: "POST",
        path: "/v1/chat/completions",
        idempotent: true,
        operationId: "createChatCompletion",
        summary: "Ask an agent as an OpenAI chat completion (`model` is its aid), streamed or not.",
        description:
          "The same access, caller, rate limit, message quota, token budgets, tools and metrics as GET /{aid}/chat: one completion is one message. The messages are the conversation (nothing stored is read back), at most COMPLETIONS_MAX_INPUT_CHARS characters together (400 naming messages past it): the agent's own instructions come first and are never replaced, system and developer messages follow them, and the last message is the question. temperature, top_p, stop, seed, frequency_penalty, presence_penalty and response_format go to the model (user is taken, and not sent on); max_tokens (or max_completion_tokens) at most the service's LLM_MAX_OUTPUT_TOKENS. n other than 1, client tools, logprobs and any field not listed are refused with 400 naming it. The exchange (the last message, cut at 10,000 characters as GET /{aid}/chat takes it, and the reply) is kept in the caller's thread `openai`. With stream: true the answer is OpenAI's event stream of chat.completion.chunk objects ending in `data: [DONE]`; stream_options.include_usage adds a last chunk with the usage.",
        security: ANYONE_OR_KEY,
        errors: "openai",
        body: {
          required: true,
          maxBytes: COMPLETION_BODY_MAX_BYTES,
          examples: examples.completionRequest,
        },
        handle: async ({ request, callProcedure, input, call }) => {
          if (input.stream === true) {
            const events = (await callProcedure(
              "completions.stream",
              input,
            )) as AsyncIterable<CompletionEvent>;
            return sseResponse<CompletionEvent>(
              events,
              request.signal,
              (first) =>
                openAiRateLimitHeaders(first?.type === "start" ? first.rate_limit : undefined),
              openAiEvents,
            );
          }
          const { completion, rate_limit } = await call(input);
          return json(completion, 200, openAiRateLimitHeaders(rate_limit));
        },
        answers: {
          200: {
            description: "The completion, or (stream: true) its event stream.",
            schema: chatCompletionSchema,
            headers: rateLimitHeaderDocs,
            examples: examples.completion,
            content: {
              "text/event-stream": {
                schema: { type: "string" },
                examples: examples.completionEvents,
              },
            },
          },
        },
        refusals: {
          400: openAiRefusal(
            "A field that is missing, invalid or not taken (named in `param`), a conversation that does not end with a user message, max_tokens above the service's limit, or malformed JSON. No quota is used.",
          ),
          ...OPENAI_CHAT_REFUSALS,
        },
      }),
    )
    .input(completionRequest)
    .output(parsedSynchronously(completionResultSchema))
    .mutation(({ ctx, input, signal }) => createCompletion(ctx, input, signal)),

  /** The completion as it is produced; no `.output()`, as for chat.stream. */
  stream: publicProcedure
    .input(completionRequest)
    .mutation(({ ctx, input, signal }) => mappedStream(streamCompletion(ctx, input, signal))),
});
