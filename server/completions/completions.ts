import { randomBytes } from "node:crypto";
import type { z } from "zod";
import {
  type Ask,
  ask,
  askStreaming,
  type ChatContext,
  type ChatReply,
  type rateLimitSchema,
} from "@/server/chat";
import { AppError } from "@/server/frame/errors";
import { askedAid, checkTokenBound, inModelTerms } from "@/server/openai-models";
import type { ChatTurn } from "@/server/providers";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  CompletionMessage,
  CompletionRequest,
} from "./schema";

/**
 * POST /v1/chat/completions through the chat's own path (server/chat `ask`). The request's
 * messages are the conversation; the exchange is stored in the caller's thread `openai`.
 */

export const COMPLETIONS_THREAD = "openai";

type CompletionContext = ChatContext;
type RateLimitView = z.infer<typeof rateLimitSchema>;

export type CompletionResult = { completion: ChatCompletion; rate_limit: RateLimitView };

/** A streamed completion: its rate-limit standing first (for headers), then OpenAI's chunks. */
export type CompletionEvent =
  | { type: "start"; rate_limit: RateLimitView }
  | { type: "chunk"; chunk: ChatCompletionChunk };

export async function createCompletion(
  ctx: CompletionContext,
  request: CompletionRequest,
  signal?: AbortSignal,
): Promise<CompletionResult> {
  const question = askOf(ctx, request);
  const created = unixSeconds(ctx.clock.now());
  let reply: ChatReply;
  try {
    reply = await ask(ctx, question, signal);
  } catch (error) {
    throw await inModelTerms(ctx, error, request.model);
  }
  return {
    completion: {
      id: completionId(),
      object: "chat.completion",
      created,
      model: request.model,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: reply.reply, refusal: null },
          finish_reason: reply.finish_reason,
          logprobs: null,
        },
      ],
      usage: usageOf(reply),
      ...waiting(reply),
    },
    rate_limit: reply.rate_limit,
  };
}

export async function* streamCompletion(
  ctx: CompletionContext,
  request: CompletionRequest,
  signal?: AbortSignal,
): AsyncGenerator<CompletionEvent, void, undefined> {
  const question = askOf(ctx, request);
  const id = completionId();
  const created = unixSeconds(ctx.clock.now());
  const model = request.model;
  // With usage asked for, every chunk says `usage: null` but the last, as OpenAI's do.
  const withUsage = request.stream_options?.include_usage === true;
  const chunk = (
    delta: ChatCompletionChunk["choices"][number]["delta"],
    finish: ChatCompletionChunk["choices"][number]["finish_reason"],
  ): CompletionEvent => ({
    type: "chunk",
    chunk: {
      id,
      object: "chat.completion.chunk",
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
      ...(withUsage ? { usage: null } : {}),
    },
  });
  try {
    for await (const event of askStreaming(ctx, question, signal)) {
      if (event.type === "delta") yield chunk({ content: event.text }, null);
      else if (event.type === "start") {
        yield { type: "start", rate_limit: event.rate_limit };
        yield chunk({ role: "assistant", content: "" }, null);
      } else if (event.type === "done") {
        const last = chunk({}, event.finish_reason) as Extract<CompletionEvent, { type: "chunk" }>;
        yield { type: "chunk", chunk: { ...last.chunk, ...waiting(event) } };
        if (withUsage)
          yield {
            type: "chunk",
            chunk: {
              id,
              object: "chat.completion.chunk",
              created,
              model,
              choices: [],
              usage: usageOf(event),
            },
          };
      }
      // Tool calls and results are the agent's own, made inside the service: not the client's.
    }
  } catch (error) {
    throw await inModelTerms(ctx, error, model);
  }
}

/** The calls a paused turn waits on, beside OpenAI's fields; nothing when it completed. */
const waiting = (reply: Pick<ChatReply, "approvals">) =>
  reply.approvals.length > 0 ? { approvals: reply.approvals } : {};

function askOf(ctx: CompletionContext, request: CompletionRequest): Ask {
  const model = askedAid(request.model);
  const maxTokens = request.max_completion_tokens ?? request.max_tokens ?? undefined;
  const field = request.max_completion_tokens != null ? "max_completion_tokens" : "max_tokens";
  checkTokenBound(field, maxTokens, ctx.model.llm.maxOutputTokens);
  const texts = request.messages.map(textOf);
  boundInput(texts, ctx.config.completions.maxInputChars);
  const last = texts.length - 1;
  const stop = request.stop ?? undefined;
  return {
    via: "completions",
    aid: model,
    chatId: COMPLETIONS_THREAD,
    question: texts[last] as string,
    history: request.messages.slice(0, last).map((message, i) => turnOf(message, texts[i] ?? "")),
    settings: {
      temperature: request.temperature ?? undefined,
      maxOutputTokens: maxTokens,
      topP: request.top_p ?? undefined,
      stop: stop === undefined ? undefined : typeof stop === "string" ? [stop] : stop,
      seed: request.seed ?? undefined,
      frequencyPenalty: request.frequency_penalty ?? undefined,
      presencePenalty: request.presence_penalty ?? undefined,
      responseFormat: request.response_format ?? undefined,
    },
  };
}

/**
 * The conversation is sent to the model whole with every request, so its size is bounded as
 * chat's question and history are (COMPLETIONS_MAX_INPUT_CHARS), not only by the body's bytes.
 */
function boundInput(texts: string[], maxChars: number): void {
  let chars = 0;
  for (const text of texts) chars += text.length;
  if (chars <= maxChars) return;
  const bound = maxChars.toLocaleString("en");
  throw new AppError(
    "validation_failed",
    `messages hold ${chars.toLocaleString("en")} characters, more than the ${bound} a completion's messages may hold together; send a shorter conversation.`,
    { errors: [{ field: "messages", detail: `must hold at most ${bound} characters in all` }] },
  );
}

/** A message as the model is given it: developer is OpenAI's newer name for system. */
function turnOf(message: CompletionMessage, content: string): ChatTurn {
  return message.role === "system" || message.role === "developer"
    ? { role: "system", content }
    : { role: message.role, content };
}

function textOf(message: CompletionMessage): string {
  return typeof message.content === "string"
    ? message.content
    : message.content.map((part) => part.text).join("\n");
}

function usageOf(reply: Pick<ChatReply, "usage">): ChatCompletion["usage"] {
  const { input_tokens, output_tokens } = reply.usage;
  return {
    prompt_tokens: input_tokens,
    completion_tokens: output_tokens,
    total_tokens: input_tokens + output_tokens,
  };
}

/** OpenAI's form of an id (`chatcmpl-` and 24 random characters); not stored. */
function completionId(): string {
  return `chatcmpl-${randomBytes(18).toString("base64url")}`;
}

const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);
