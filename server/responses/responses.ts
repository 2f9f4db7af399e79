import { randomBytes } from "node:crypto";
import type { z } from "zod";
import type { StoredInputMessage } from "@/db/schema";
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
import { approvalItems, messageOf, responseObjectOf, settingsOf } from "./object";
import type { OutputItem, ResponseObject, ResponseRequest } from "./schema";
import { type KeptResponse, keepResponse, keptResponse, previousTurns, turnOf } from "./store";

/**
 * POST /v1/responses through the chat's own path (server/chat `ask`): the conversation of the
 * previous response, then the input; the agent's instructions first, the request's after them.
 * The exchange is stored in the caller's thread `responses`; the response itself is kept unless
 * `store` is false.
 */

export const RESPONSES_THREAD = "responses";

export type ResponseContext = ChatContext;
type RateLimitView = z.infer<typeof rateLimitSchema>;

export type ResponseResult = { response: ResponseObject; rate_limit: RateLimitView };

/** A streamed response's events, before the stream numbers them (`sequence_number`). */
export type ResponseEvent =
  | { type: "start"; rate_limit: RateLimitView }
  | ({ type: `response.${string}` } & Record<string, unknown>);

/** A request made ready: what the chat is asked, and what its response object repeats. */
export type Prepared = {
  request: ResponseRequest;
  ask: Ask;
  input: StoredInputMessage[];
  id: string;
  messageId: string;
  createdAt: number;
};

export async function createResponse(
  ctx: ResponseContext,
  request: ResponseRequest,
  signal?: AbortSignal,
): Promise<ResponseResult> {
  const prepared = await prepare(ctx, request);
  let reply: ChatReply;
  try {
    reply = await ask(ctx, prepared.ask, signal);
    await keep(ctx, prepared, reply);
  } catch (error) {
    throw await inModelTerms(ctx, error, request.model);
  }
  return {
    response: responseOf(
      prepared,
      "completed",
      [messageOf(prepared, reply.reply), ...approvalItems(reply.approvals)],
      reply,
    ),
    rate_limit: reply.rate_limit,
  };
}

export async function* streamResponse(
  ctx: ResponseContext,
  request: ResponseRequest,
  signal?: AbortSignal,
): AsyncGenerator<ResponseEvent, void, undefined> {
  yield* eventsOf(ctx, await prepare(ctx, request), signal);
}

/** The events of a prepared response, as the chat answers it. */
export async function* eventsOf(
  ctx: ResponseContext,
  prepared: Prepared,
  signal?: AbortSignal,
): AsyncGenerator<ResponseEvent, void, undefined> {
  const { request } = prepared;
  const item = { item_id: prepared.messageId, output_index: 0 };
  // The message is announced with its first text, as OpenAI's are: a turn that fails before
  // it has no output.
  let announced = false;
  function* announce(): Generator<ResponseEvent> {
    if (announced) return;
    announced = true;
    yield {
      type: "response.output_item.added",
      output_index: 0,
      item: { ...messageOf(prepared, ""), status: "in_progress", content: [] },
    };
    yield {
      type: "response.content_part.added",
      ...item,
      content_index: 0,
      part: { type: "output_text", text: "", annotations: [] },
    };
  }
  try {
    for await (const event of askStreaming(ctx, prepared.ask, signal)) {
      if (event.type === "start") {
        const begun = responseOf(prepared, "in_progress", [], null);
        yield { type: "start", rate_limit: event.rate_limit };
        yield { type: "response.created", response: begun };
        yield { type: "response.in_progress", response: begun };
      } else if (event.type === "delta") {
        yield* announce();
        yield { type: "response.output_text.delta", ...item, content_index: 0, delta: event.text };
      } else if (event.type === "done") {
        yield* announce();
        const message = messageOf(prepared, event.reply);
        yield { type: "response.output_text.done", ...item, content_index: 0, text: event.reply };
        yield {
          type: "response.content_part.done",
          ...item,
          content_index: 0,
          part: message.content[0],
        };
        yield { type: "response.output_item.done", output_index: 0, item: message };
        // A turn waiting for approvals: one item per call, after the message.
        const waiting = approvalItems(event.approvals);
        for (const [i, approval] of waiting.entries()) {
          yield { type: "response.output_item.added", output_index: i + 1, item: approval };
          yield { type: "response.output_item.done", output_index: i + 1, item: approval };
        }
        await keep(ctx, prepared, event);
        yield {
          type: "response.completed",
          response: responseOf(prepared, "completed", [message, ...waiting], event),
        };
      }
      // Tool calls and results are the agent's own, made inside the service: not the client's.
    }
  } catch (error) {
    throw await inModelTerms(ctx, error, request.model);
  }
}

export async function prepare(ctx: ResponseContext, request: ResponseRequest): Promise<Prepared> {
  const model = askedAid(request.model);
  const maxTokens = request.max_output_tokens ?? undefined;
  checkTokenBound("max_output_tokens", maxTokens, ctx.model.llm.maxOutputTokens);
  const input = inputMessages(request.input);
  const maxChars = ctx.config.completions.maxInputChars;
  const own = input.reduce((n, message) => n + message.text.length, 0);
  if (own + (request.instructions?.length ?? 0) > maxChars) throw tooLong(own, maxChars);
  const earlier = request.previous_response_id
    ? await previousTurns(ctx, {
        id: request.previous_response_id,
        aid: model,
        maxChars: maxChars - own - (request.instructions?.length ?? 0),
      })
    : [];
  const last = input.length - 1;
  const history: ChatTurn[] = [
    ...(request.instructions ? [{ role: "system" as const, content: request.instructions }] : []),
    ...earlier,
    ...input.slice(0, last).map(turnOf),
  ];
  const suffix = randomBytes(16).toString("hex");
  const made = {
    request,
    input,
    id: `resp_${suffix}`,
    messageId: `msg_${suffix}`,
    createdAt: Math.floor(ctx.clock.now().getTime() / 1000),
  };
  return {
    ...made,
    ask: {
      via: "responses",
      aid: model,
      chatId: RESPONSES_THREAD,
      question: (input[last] as StoredInputMessage).text,
      history,
      settings: {
        temperature: request.temperature ?? undefined,
        topP: request.top_p ?? undefined,
        maxOutputTokens: maxTokens,
      },
      // Kept with its exchange, in the same statement; a background response's row is written
      // as it begins instead (background.ts), and `store: false` keeps none.
      ...(request.store === false || request.background
        ? {}
        : { keep: keptResponse(keptRequest(made)) }),
    },
  };
}

/**
 * A chat (GET /{aid}/chat with `Prefer: respond-async`) as a background response: its thread and
 * history are the chat's own (`chat_id`), and it is read and followed as a response.
 */
export function preparedChat(
  ctx: ResponseContext,
  input: { aid: string; q: string; chat_id: string },
): Prepared {
  const suffix = randomBytes(16).toString("hex");
  return {
    request: { model: input.aid, input: input.q, background: true, store: true } as ResponseRequest,
    input: [{ role: "user", text: input.q }],
    id: `resp_${suffix}`,
    messageId: `msg_${suffix}`,
    createdAt: Math.floor(ctx.clock.now().getTime() / 1000),
    ask: { via: "chat", aid: input.aid, chatId: input.chat_id, question: input.q },
  };
}

function inputMessages(input: ResponseRequest["input"]): StoredInputMessage[] {
  if (typeof input === "string") return [{ role: "user", text: input }];
  return input.map((message) => ({
    role: message.role,
    text:
      typeof message.content === "string"
        ? message.content
        : message.content.map((part) => part.text).join("\n"),
  }));
}

function tooLong(chars: number, maxChars: number): AppError {
  const bound = maxChars.toLocaleString("en");
  return new AppError(
    "validation_failed",
    `input and instructions hold ${chars.toLocaleString("en")} characters, more than the ${bound} a response's own input may hold; send a shorter input.`,
    { errors: [{ field: "input", detail: `must hold at most ${bound} characters in all` }] },
  );
}

/**
 * A reply waiting for approvals is not stored with its exchange, so its response is kept here;
 * a completed one was kept by the chat's store statement (`ask.keep`, set by `prepare`).
 */
async function keep(
  ctx: ResponseContext,
  prepared: Prepared,
  reply: Pick<ChatReply, "reply" | "usage" | "status">,
): Promise<void> {
  if (!prepared.ask.keep || reply.status === "completed") return;
  await keepResponse(ctx, {
    ...keptRequest(prepared),
    aid: prepared.ask.aid,
    outputText: reply.reply,
    inputTokens: reply.usage.input_tokens,
    outputTokens: reply.usage.output_tokens,
  });
}

/** What a kept response repeats of its request, whatever its reply. */
function keptRequest({ id, request, input, createdAt }: Omit<Prepared, "ask">) {
  return {
    id,
    previousResponseId: request.previous_response_id ?? null,
    instructions: request.instructions ?? null,
    input,
    metadata: request.metadata ?? {},
    settings: settingsOf(request),
    createdAt: new Date(createdAt * 1000),
  };
}

/** The row of a background response as it begins: in progress, its reply to come. */
export function beginningRow(prepared: Prepared, now: Date): KeptResponse {
  return {
    ...keptRequest(prepared),
    aid: prepared.request.model,
    outputText: "",
    inputTokens: 0,
    outputTokens: 0,
    status: "in_progress",
    background: true,
    heartbeatAt: now,
    eventsKept: true,
  };
}

export function responseOf(
  prepared: Prepared,
  status: ResponseObject["status"],
  output: OutputItem[],
  reply: Pick<ChatReply, "usage"> | null,
  error: ResponseObject["error"] = null,
): ResponseObject {
  const { request } = prepared;
  return responseObjectOf(
    {
      id: prepared.id,
      model: request.model,
      createdAt: prepared.createdAt,
      instructions: request.instructions ?? null,
      previousResponseId: request.previous_response_id ?? null,
      store: request.store !== false,
      metadata: request.metadata ?? {},
      settings: settingsOf(request),
      background: request.background === true,
    },
    status,
    output,
    reply?.usage ?? null,
    error,
  );
}
