import { agentNotFound, agentPaused, assertAgentExists } from "@/server/agents";
import { decidingScope, pauseTurn } from "@/server/approvals";
import { type Caller, callerId } from "@/server/callers";
import type { Config } from "@/server/frame/config";
import type { DataContext } from "@/server/frame/data-context";
import { AppError } from "@/server/frame/errors";
import { cutText } from "@/server/kit/text";
import {
  type CallSettings,
  type ModelCall,
  type ModelReply,
  type ModelRuntime,
  noModelSlot,
  type PausedTurns,
  startModelCall,
} from "@/server/model-call";
import { inSpan, inSpanSteps, startSpan, tracingOn } from "@/server/observability";
import type { ChatTurn } from "@/server/providers";
import { presentQuota, quotaExceededError, releaseMessage, settleMessage } from "@/server/quota";
import type { RequestVia } from "@/server/request-log";
import { type KeptRow, storeExchange, type ThreadRef } from "@/server/threads";
import { watchChat } from "./cancel";
import { admissionOf, type OpenedChat, type Opening, openChat } from "./opening";
import { beginChat, endChat } from "./outcomes";
import { presentRateLimit, withRateLimit } from "./rate-limit";
import { replyOf } from "./reply";
import { type ChatEvent, type ChatInput, type ChatReply, Q_MAX_LENGTH } from "./schema";
import { chatSpan, DB_SPAN, onDone, replyAttributes } from "./spans";

/**
 * The chat engine. Order matters: a model slot must be free (503); then one statement
 * (opening.ts) checks the agent (404), the caller (401) and the rate window (429) and reserves a
 * message use (429) before the model is called. A reply that is not delivered releases the use
 * and stores nothing; a delivered one is stored with its question, settling the use.
 */

/** What a chat needs of its request: the database and clock, the model, the caller, the config. */
export type ChatContext = DataContext & {
  model: ModelRuntime;
  caller: Caller;
  config: Config;
  requestId?: string;
};

/**
 * A question to an agent: from GET /{aid}/chat (the thread's stored history goes with it) or
 * POST /v1/chat/completions (the caller sends the conversation; the exchange is still stored).
 */
export type Ask = {
  via: RequestVia;
  aid: string;
  chatId: string;
  question: string;
  history?: ChatTurn[];
  settings?: CallSettings;
  /** What the way in keeps of a stored reply (a response, an A2A task), in the store's statement. */
  keep?: (reply: Pick<ModelReply, "text" | "usage">) => KeptRow;
};

type Exchange = {
  ask: Ask;
  thread: ThreadRef;
  askedAt: Date;
  opened: OpenedChat;
  call: ModelCall;
};

const askOf = (input: ChatInput): Ask => ({
  via: "chat",
  aid: input.aid,
  chatId: input.chat_id,
  question: input.q,
});

export function sendMessage(
  ctx: ChatContext,
  input: ChatInput,
  signal?: AbortSignal,
): Promise<ChatReply> {
  return ask(ctx, askOf(input), signal);
}

export function ask(ctx: ChatContext, question: Ask, signal?: AbortSignal): Promise<ChatReply> {
  if (!tracingOn()) return askUntraced(ctx, question, signal);
  return inSpan(...chatSpan(question), async (span) => {
    const reply = await askUntraced(ctx, question, signal);
    span?.setAttributes(replyAttributes(reply));
    return reply;
  });
}

async function askUntraced(
  ctx: ChatContext,
  question: Ask,
  signal?: AbortSignal,
): Promise<ChatReply> {
  const chat = chatOf(ctx, question);
  const cancellable = watched(ctx, question, signal);
  try {
    const reply = await send(ctx, question, cancellable?.signal ?? signal);
    endChat(ctx, chat, { reply });
    return reply;
  } catch (error) {
    endChat(ctx, chat, { error });
    throw error;
  } finally {
    cancellable?.done();
  }
}

/** A chat asked over HTTP can be cancelled by its request id, from any instance (cancel.ts). */
const watched = (ctx: ChatContext, { aid }: Ask, signal: AbortSignal | undefined) =>
  ctx.requestId === undefined
    ? undefined
    : watchChat(ctx.db, { requestId: ctx.requestId, aid, caller: ctx.caller }, signal);

const chatOf = (ctx: ChatContext, { aid, chatId, via }: Ask) => ({
  aid,
  chatId,
  via,
  begun: beginChat(ctx),
});

async function send(ctx: ChatContext, question: Ask, signal?: AbortSignal): Promise<ChatReply> {
  const exchange = await beginExchange(ctx, question, signal);
  try {
    const reply = await exchange.call.generate().catch((error: unknown) => {
      throw exchange.call.failure(error);
    });
    if (signal?.aborted) throw exchange.call.failure(signal.reason);
    if (reply.paused) return await pauseExchange(ctx, exchange, reply, reply.paused);
    return await completeExchange(ctx, exchange, reply);
  } catch (error) {
    await releaseMessage(ctx.db, {
      aid: exchange.ask.aid,
      reservationId: exchange.opened.reservationId,
    });
    throw withRateLimit(error, exchange.opened.rateLimit);
  } finally {
    exchange.call.end();
  }
}

/**
 * Yields the reply as the model produces it. `start` comes once the agent, a model slot and the
 * quota are secured, so a caller waiting for it can still answer 404, 429 or 503 plainly.
 */
export function streamMessage(
  ctx: ChatContext,
  input: ChatInput,
  signal?: AbortSignal,
): AsyncGenerator<ChatEvent, void, undefined> {
  return askStreaming(ctx, askOf(input), signal);
}

export function askStreaming(
  ctx: ChatContext,
  question: Ask,
  signal?: AbortSignal,
): AsyncGenerator<ChatEvent, void, undefined> {
  const events = askStreamingUntraced(ctx, question, signal);
  const started = tracingOn() ? startSpan(...chatSpan(question)) : undefined;
  if (!started) return events;
  const seen = (reply: ChatReply) => started.span.setAttributes(replyAttributes(reply));
  return inSpanSteps(started, onDone(events, seen));
}

async function* askStreamingUntraced(
  ctx: ChatContext,
  question: Ask,
  signal?: AbortSignal,
): AsyncGenerator<ChatEvent, void, undefined> {
  const chat = chatOf(ctx, question);
  const stored: { reply?: ChatReply } = {};
  let failure: { error: unknown } | undefined;
  const cancellable = watched(ctx, question, signal);
  try {
    yield* stream(ctx, question, cancellable?.signal ?? signal, stored);
  } catch (error) {
    failure = { error };
    throw error;
  } finally {
    cancellable?.done();
    // A stored reply is a delivered one, even if the consumer stopped right after `done`; left
    // without either, the consumer stopped early (the client went away).
    endChat(
      ctx,
      chat,
      stored.reply ? { reply: stored.reply } : (failure ?? { error: clientGone() }),
    );
  }
}

const clientGone = () =>
  new AppError(
    "client_closed_request",
    "The client closed the request before the reply was complete.",
  );

async function* stream(
  ctx: ChatContext,
  question: Ask,
  signal: AbortSignal | undefined,
  stored: { reply?: ChatReply },
): AsyncGenerator<ChatEvent, void, undefined> {
  const exchange = await beginExchange(ctx, question, signal);
  let delivered = false;
  try {
    yield {
      type: "start",
      aid: question.aid,
      chat_id: question.chatId,
      rate_limit: presentRateLimit(exchange.opened.rateLimit),
    };
    const deltas = exchange.call.stream();
    let reply: ModelReply;
    try {
      for (;;) {
        const next = await deltas.next();
        if (next.done) {
          reply = next.value;
          break;
        }
        yield typeof next.value === "string" ? { type: "delta", text: next.value } : next.value;
      }
    } catch (error) {
      // Only the model call's own failures are put in its terms (timeout, provider, client
      // gone); a failed write after it is what it is, even once the deadline has passed.
      throw exchange.call.failure(error);
    } finally {
      // The consumer stopped at a delta (the client left): close the upstream call too.
      await deltas.return(undefined as never);
    }
    // A client that left after the last delta never gets `done`: its reply is not delivered.
    // (One that leaves while the exchange is being stored has had every delta; it is counted.)
    if (signal?.aborted) throw exchange.call.failure(signal.reason);
    const done = reply.paused
      ? await pauseExchange(ctx, exchange, reply, reply.paused)
      : await completeExchange(ctx, exchange, reply);
    delivered = true;
    stored.reply = done;
    yield { type: "done", ...done };
  } finally {
    // Also reached when the consumer stops early (the client went away): not delivered.
    if (!delivered)
      await releaseMessage(ctx.db, {
        aid: exchange.ask.aid,
        reservationId: exchange.opened.reservationId,
      });
    exchange.call.end();
  }
}

/**
 * Whether a chat would be taken, without calling the model or counting anything: the agent's
 * name if so, its refusal if not.
 */
export async function checkChat(
  { db, caller, clock }: DataContext & { caller: Caller },
  { aid }: Pick<ChatInput, "aid">,
): Promise<{ aid: string; name: string }> {
  const admission = await admissionOf(db, { aid, caller }, clock.now());
  if (admission.outcome !== "admitted") throw refusal(aid, admission);
  return { aid, name: admission.name };
}

/** What the caller sends the model: its question and the history it brings, if any. */
function inputChars({ question, history }: Ask): number {
  let chars = question.length;
  for (const turn of history ?? []) chars += turn.content?.length ?? 0;
  return chars;
}

/** The stored history of a thread is not read for a question that brings its own. */
const NO_STORED_HISTORY = { historyMessages: 0, historyMaxChars: 0 };

async function beginExchange(
  ctx: ChatContext,
  question: Ask,
  signal?: AbortSignal,
): Promise<Exchange> {
  const { aid, chatId } = question;
  const askedAt = ctx.clock.now();
  // The slot first, so that a busy server refuses before it touches the rate window or quota.
  const releaseSlot = ctx.model.slots.tryAcquire();
  if (!releaseSlot) throw noModelSlot(ctx.model.slots);
  try {
    const thread = { aid, caller: callerId(ctx.caller), chatId };
    const opening = await inSpan(...DB_SPAN.opening, () =>
      openChat(
        ctx,
        { aid, caller: ctx.caller, chatId, inputChars: inputChars(question) },
        question.history ? NO_STORED_HISTORY : ctx.model.chat,
      ),
    );
    if (opening.outcome !== "opened") throw refusal(aid, opening);
    try {
      const call = startModelCall(ctx.model, {
        agent: opening.agent,
        history: question.history ?? opening.history,
        question: question.question,
        releaseSlot,
        signal,
        store: ctx,
        ...(question.settings ? { settings: question.settings } : {}),
      });
      return { ask: question, thread, askedAt, opened: opening, call };
    } catch (error) {
      await releaseMessage(ctx.db, { aid, reservationId: opening.reservationId });
      throw error;
    }
  } catch (error) {
    releaseSlot();
    throw error;
  }
}

function refusal(aid: string, opening: Exclude<Opening, OpenedChat>): AppError {
  switch (opening.outcome) {
    case "not_found":
      return agentNotFound(aid);
    case "paused":
      return agentPaused(aid);
    case "key_required":
      return new AppError(
        "key_required",
        `Agent '${aid}' takes chats from its keys only: send 'Authorization: Bearer <key>' with a key an admin made for it.`,
      );
    case "key_invalid":
      return new AppError(
        "invalid_key",
        `The key is not one of agent '${aid}': it is wrong or malformed, revoked, expired, or belongs to another agent.`,
      );
    case "rate_limited": {
      const { limit, resetS } = opening.rateLimit;
      return withRateLimit(
        new AppError(
          "rate_limited",
          `Rate limit reached: agent '${aid}' takes ${limit.toLocaleString("en")} chats a minute from each caller; try again in ${resetS} s.`,
          { retryAfterS: resetS },
        ),
        opening.rateLimit,
      ) as AppError;
    }
    case "quota_exceeded":
      return withRateLimit(quotaExceededError(opening.exceeded), opening.rateLimit) as AppError;
  }
}

async function completeExchange(
  ctx: ChatContext,
  exchange: Exchange,
  reply: ModelReply,
): Promise<ChatReply> {
  const { ask, askedAt, thread, opened } = exchange;
  const answeredAt = ctx.clock.now();
  const { stored, cost } = await inSpan(...DB_SPAN.store, () =>
    storeExchange(
      ctx.db,
      {
        ...thread,
        // A thread holds what chat would: a completion's question may be longer than chat takes.
        question: cutText(ask.question, Q_MAX_LENGTH),
        reply: reply.text,
        model: reply.model,
        usage: reply.usage,
        toolCalls: reply.toolCalls,
        askedAt,
        answeredAt,
      },
      settleMessage(opened.reservationId),
      "message",
      ask.keep?.(reply),
    ),
  );
  // Its reservation was swept (the chat outlived any live chat's bound), or the agent was
  // deleted meanwhile: the use is given back, and the reply is not kept.
  if (!stored) {
    await assertAgentExists(ctx.db, ask.aid);
    throw new AppError(
      "service_unavailable",
      "The reply took too long to be stored and was not kept; ask again.",
      { retryAfterS: 1 },
    );
  }
  return replyOf(ask, reply, {
    cost,
    quota: presentQuota(opened.quotaRow, answeredAt),
    rateLimit: presentRateLimit(opened.rateLimit),
  });
}

/**
 * A turn that asked for tools people must approve: recorded with its message reservation, which
 * it keeps, so the reply is counted once, when it is stored (server/chat/paused.ts).
 */
async function pauseExchange(
  ctx: ChatContext,
  { ask, askedAt, thread, opened }: Exchange,
  reply: ModelReply,
  paused: PausedTurns,
): Promise<ChatReply> {
  const approvals = await pauseTurn(
    ctx,
    ctx.model.tools.config.approvalWaitMs,
    {
      aid: ask.aid,
      via: ask.via,
      caller: thread.caller,
      scope: decidingScope(ctx.caller),
      chatId: ask.chatId,
      reservationId: opened.reservationId,
    },
    {
      paused,
      question: cutText(ask.question, Q_MAX_LENGTH),
      askedAt: askedAt.toISOString(),
      ...(ask.settings ? { settings: ask.settings } : {}),
    },
  );
  return replyOf(
    ask,
    reply,
    {
      cost: null,
      quota: presentQuota(opened.quotaRow, ctx.clock.now()),
      rateLimit: presentRateLimit(opened.rateLimit),
    },
    approvals,
  );
}
