import { APICallError, RetryError } from "ai";
import { and, desc, eq, type SQL, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { prepared } from "@/db/prepared";
import { type AgentQuotaRow, type AgentRow, agents, chatMessages } from "@/db/schema";
import { agentNotFound } from "@/server/agents/agents";
import type { Quota } from "@/server/agents/schema";
import type { Clock } from "@/server/clock";
import type { ChatConfig, LlmConfig } from "@/server/config";
import { AppError } from "@/server/errors";
import type { ChatTurn, ModelProvider, ModelRequest } from "@/server/providers/provider";
import {
  consumeQuota,
  presentQuota,
  type Reservation,
  refundQuotaReliably,
} from "@/server/quota/quota";
import type { ModelSlots } from "./model-slots";
import type { ChatEvent, ChatInput, ChatReply } from "./schema";

/**
 * The chat engine: one message to an agent, answered by its model.
 *
 * Order matters: the agent must exist (404), a model slot must be free (503), the message
 * quota is reserved atomically (429), and only then is the model called. Whatever keeps the
 * reply from being delivered (provider failure, timeout, client gone, a failed write) gives the
 * quota back and stores nothing; a delivered reply is stored with its question, in one
 * transaction.
 */

/** What the chat engine needs beyond the database: made once per process. */
export type ChatRuntime = {
  provider: ModelProvider;
  slots: ModelSlots;
  llm: LlmConfig;
  chat: ChatConfig;
};

type ChatContext = { db: Db; clock: Clock; chat: ChatRuntime };

type Exchange = {
  agent: AgentRow;
  input: ChatInput;
  askedAt: Date;
  quotaRow: AgentQuotaRow;
  reservation: Reservation;
  request: ModelRequest;
  deadline: Deadline;
  release(): void;
};

/** Asks and waits for the whole reply. */
export async function sendMessage(
  ctx: ChatContext,
  input: ChatInput,
  signal?: AbortSignal,
): Promise<ChatReply> {
  const exchange = await beginExchange(ctx, input, signal);
  try {
    const reply = capReply(
      await ctx.chat.provider.generate(exchange.request),
      ctx.chat.chat.maxReplyChars,
    );
    return await completeExchange(ctx, exchange, reply);
  } catch (error) {
    await refundQuotaReliably(ctx, exchange.reservation);
    throw classifyFailure(error, exchange.deadline, ctx.chat.llm.timeoutMs);
  } finally {
    exchange.release();
  }
}

/**
 * Asks and yields the reply as the model produces it. The first event (`start`) comes once
 * the agent, a model slot and the quota are secured, so a caller that waits for it can still
 * answer 404, 429 or 503 with a plain status.
 */
export async function* streamMessage(
  ctx: ChatContext,
  input: ChatInput,
  signal?: AbortSignal,
): AsyncGenerator<ChatEvent, void, undefined> {
  const exchange = await beginExchange(ctx, input, signal);
  let delivered = false;
  try {
    yield { type: "start", aid: input.aid, chat_id: input.chat_id };
    let reply = "";
    for await (const delta of ctx.chat.provider.stream(exchange.request)) {
      const room = ctx.chat.chat.maxReplyChars - reply.length;
      const text = delta.slice(0, room);
      if (text) {
        reply += text;
        yield { type: "delta", text };
      }
      if (reply.length >= ctx.chat.chat.maxReplyChars) break;
    }
    const done = await completeExchange(ctx, exchange, reply);
    delivered = true;
    yield { type: "done", ...done };
  } catch (error) {
    throw classifyFailure(error, exchange.deadline, ctx.chat.llm.timeoutMs);
  } finally {
    // Also reached when the consumer stops early (the client went away): not delivered.
    if (!delivered) await refundQuotaReliably(ctx, exchange.reservation);
    exchange.release();
  }
}

async function beginExchange(
  ctx: ChatContext,
  input: ChatInput,
  signal?: AbortSignal,
): Promise<Exchange> {
  const askedAt = ctx.clock.now();
  const [agent] = await agentByAid(ctx.db).execute({ aid: input.aid });
  if (!agent) throw agentNotFound(input.aid);

  const release = ctx.chat.slots.tryAcquire();
  if (!release) throw noModelSlot(ctx.chat.slots);
  try {
    const consumed = await consumeQuota(ctx, input.aid, "message");
    if (!consumed.ok) {
      if (!consumed.exceeded) throw agentNotFound(input.aid);
      const { detail, retryAfterS, limitField, limit } = consumed.exceeded;
      throw new AppError("quota_exceeded", detail, {
        ...(retryAfterS === null ? {} : { retryAfterS }),
        limit: limitField,
        limit_value: limit,
      });
    }
    try {
      const history = await loadHistory(ctx.db, input, ctx.chat.chat);
      const deadline = startDeadline(ctx.chat.llm.timeoutMs, signal);
      return {
        agent,
        input,
        askedAt,
        quotaRow: consumed.row,
        reservation: consumed.reservation,
        request: modelRequest(agent, history, input.q, ctx.chat.llm, deadline.signal),
        deadline,
        release: () => {
          deadline.clear();
          release();
        },
      };
    } catch (error) {
      await refundQuotaReliably(ctx, consumed.reservation);
      throw error;
    }
  } catch (error) {
    release();
    throw error;
  }
}

/** Stores the question and the reply; returns what the client is sent. */
async function completeExchange(
  ctx: ChatContext,
  exchange: Exchange,
  reply: string,
): Promise<ChatReply> {
  const { input, askedAt } = exchange;
  const answeredAt = ctx.clock.now();
  await storeExchange(ctx.db, {
    aid: input.aid,
    chatId: input.chat_id,
    question: input.q,
    reply,
    askedAt,
    answeredAt,
  });
  const quota = presentQuota(exchange.quotaRow, answeredAt);
  return {
    aid: input.aid,
    chat_id: input.chat_id,
    reply,
    quota,
    remaining: remainingMessages(quota),
  };
}

/** The agent row by aid, prepared once per database handle (it runs on every chat). */
function agentByAid(db: Db) {
  return prepared(db, "agent-by-aid", () =>
    db
      .select()
      .from(agents)
      .where(eq(agents.aid, sql.placeholder("aid")))
      .prepare("agent_by_aid"),
  );
}

/** The 503 for a call that gets no model slot: all busy, or the server shutting down. */
export function noModelSlot(slots: ModelSlots): AppError {
  const detail = slots.closing
    ? "This server is shutting down; try again in a moment."
    : `All ${slots.capacity} model slots of this server are busy; try again in a moment.`;
  return new AppError("service_unavailable", detail, { retryAfterS: 1 });
}

/**
 * Writes a question and its reply to their thread in one statement (atomic by itself, so no
 * transaction and its two extra round trips): the thread is created or counted up, and both
 * messages inserted; the foreign key to the thread is checked at the end of the statement.
 * `andThen`, when given, is a further write done by the same statement (an autonomous run
 * marked succeeded), so that the exchange and it are stored together or not at all.
 */
export async function storeExchange(
  db: Db,
  exchange: {
    aid: string;
    chatId: string;
    question: string;
    reply: string;
    askedAt: Date;
    answeredAt: Date;
  },
  andThen: SQL = sql`SELECT 1`,
): Promise<void> {
  const { aid, chatId, question, reply } = exchange;
  const askedAt = exchange.askedAt.toISOString();
  const answeredAt = exchange.answeredAt.toISOString();
  // Data-modifying WITH clauses run to completion whether or not the main statement reads them.
  await db.execute(sql`
    WITH thread AS (
      INSERT INTO chat_threads (aid, chat_id, message_count, created_at, last_message_at)
      VALUES (${aid}, ${chatId}, 2, ${askedAt}, ${answeredAt})
      ON CONFLICT (aid, chat_id) DO UPDATE
        SET message_count = chat_threads.message_count + 2, last_message_at = EXCLUDED.last_message_at
      RETURNING aid
    ), messages AS (
      INSERT INTO chat_messages (aid, chat_id, role, content, created_at)
      SELECT ${aid}, ${chatId}, m.role, m.content, m.created_at::timestamptz
      FROM thread, (VALUES (1, 'user', ${question}, ${askedAt}), (2, 'assistant', ${reply}, ${answeredAt}))
        AS m(position, role, content, created_at)
      -- The question gets the lower id: history and listings are ordered by id.
      ORDER BY m.position
    )
    ${andThen}`);
}

/**
 * The thread's most recent messages, oldest first: at most `historyMessages`, and at most
 * `historyMaxChars` characters of them (the oldest go first). Read by one backward index scan,
 * so its cost does not grow with the thread.
 */
export async function loadHistory(
  db: Db,
  { aid, chat_id }: Pick<ChatInput, "aid" | "chat_id">,
  { historyMessages, historyMaxChars }: Pick<ChatConfig, "historyMessages" | "historyMaxChars">,
): Promise<ChatTurn[]> {
  if (historyMessages === 0) return [];
  const newestFirst = await prepared(db, "history", () =>
    db
      .select({ role: chatMessages.role, content: chatMessages.content })
      .from(chatMessages)
      .where(
        and(
          eq(chatMessages.aid, sql.placeholder("aid")),
          eq(chatMessages.chatId, sql.placeholder("chatId")),
        ),
      )
      .orderBy(desc(chatMessages.id))
      .limit(sql.placeholder("limit"))
      .prepare("history"),
  ).execute({ aid, chatId: chat_id, limit: historyMessages });
  const kept: ChatTurn[] = [];
  let chars = 0;
  for (const message of newestFirst) {
    chars += message.content.length;
    if (chars > historyMaxChars) break;
    kept.push(message);
  }
  return kept.reverse();
}

/** The system prompt names the agent, then gives its own prompt. */
export function systemPrompt(agent: Pick<AgentRow, "name" | "prompt">): string {
  return agent.prompt ? `You are ${agent.name}.\n\n${agent.prompt}` : `You are ${agent.name}.`;
}

export function modelRequest(
  agent: AgentRow,
  history: ChatTurn[],
  question: string,
  llm: LlmConfig,
  signal: AbortSignal,
): ModelRequest {
  return {
    model: agent.model ?? llm.defaultModel,
    system: systemPrompt(agent),
    messages: [...history, { role: "user", content: question }],
    temperature: agent.temperature ?? undefined,
    maxOutputTokens: llm.maxOutputTokens,
    signal,
  };
}

export function capReply(reply: string, maxChars: number): string {
  return reply.length > maxChars ? reply.slice(0, maxChars) : reply;
}

function remainingMessages(quota: Quota): ChatReply["remaining"] {
  const left = (limit: number | null, count: number) =>
    limit === null ? null : Math.max(0, limit - count);
  return {
    messages_total: left(quota.message_limit_total, quota.message_count_total),
    messages_monthly: left(quota.message_limit_monthly, quota.message_count_monthly),
    messages_daily: left(quota.message_limit_daily, quota.message_count_daily),
  };
}

/** The model call's time bound, joined with the client's own signal. */
export type Deadline = {
  signal: AbortSignal;
  timedOut(): boolean;
  clientGone(): boolean;
  /** Stops the timer once the exchange is over (see startDeadline). */
  clear(): void;
};

/**
 * The model call's deadline: `timeoutMs`, or sooner if the client goes away. A plain timer that
 * is cleared when the exchange ends, not AbortSignal.timeout: a pending timeout holds the async
 * context it was made in, and with it the whole finished request (Next.js's request store, the
 * ServerResponse), which Node 20 frees only after several collections. Under sustained chat
 * load that garbage outran the collector: resident memory climbed to 670 MB with a live heap of
 * 47 MB (nodejs/node#53408, #62367).
 */
export function startDeadline(timeoutMs: number, clientSignal: AbortSignal | undefined): Deadline {
  const timeout = new AbortController();
  const timer = setTimeout(
    () => timeout.abort(new DOMException("The model call timed out.", "TimeoutError")),
    timeoutMs,
  );
  // Like AbortSignal.timeout, it never keeps a stopping process alive.
  timer.unref();
  return {
    signal: clientSignal ? AbortSignal.any([clientSignal, timeout.signal]) : timeout.signal,
    timedOut: () => timeout.signal.aborted,
    clientGone: () => clientSignal?.aborted ?? false,
    clear: () => clearTimeout(timer),
  };
}

/** Says what went wrong in the client's terms; never passes the provider's text through. */
export function classifyFailure(error: unknown, deadline: Deadline, timeoutMs: number): unknown {
  if (error instanceof AppError) return error;
  if (deadline.timedOut()) {
    return new AppError(
      "provider_timeout",
      `The model provider did not answer within ${timeoutMs / 1000} s.`,
    );
  }
  if (deadline.clientGone()) {
    return new AppError(
      "client_closed_request",
      "The client closed the request before the reply was complete.",
    );
  }
  const cause = RetryError.isInstance(error) ? error.lastError : error;
  if (APICallError.isInstance(cause)) {
    const attempts = RetryError.isInstance(error) ? ` after ${error.errors.length} attempts` : "";
    const status = cause.statusCode ? `HTTP ${cause.statusCode}` : "no usable answer";
    return new AppError("provider_error", `The model provider failed (${status}${attempts}).`);
  }
  if (isProviderFailure(error)) {
    return new AppError(
      "provider_error",
      "The model provider could not be reached or sent an invalid reply.",
    );
  }
  return error;
}

/** Errors of the AI SDK (network, malformed reply) as opposed to our own bugs or the database. */
function isProviderFailure(error: unknown): boolean {
  const name = (error as { name?: unknown })?.name;
  return typeof name === "string" && name.startsWith("AI_");
}
