import { isDatabaseUnavailable } from "@/db/failures";
import type { Caller } from "@/server/callers";
import { callerId } from "@/server/callers";
import type { Config } from "@/server/frame/config";
import type { DataContext } from "@/server/frame/data-context";
import { AppError, type ProblemCode, problemFromError } from "@/server/frame/errors";
import { type ChatOutcome, countChat, metrics } from "@/server/observability";
import { type RequestVia, recordRequest } from "@/server/request-log";
import type { ChatReply } from "./schema";

/** What became of a chat, for the metrics: `ok`, or why it failed. */
const OUTCOMES: Partial<Record<ProblemCode, ChatOutcome>> = {
  quota_exceeded: "quota",
  rate_limited: "rate",
  agent_not_found: "not_found",
  agent_paused: "paused",
  key_required: "unauthorized",
  invalid_key: "unauthorized",
  provider_error: "provider_error",
  provider_timeout: "timeout",
  service_unavailable: "overload",
  client_closed_request: "client_closed",
  chat_cancelled: "cancelled",
  database_unavailable: "unavailable",
};

export function recordChat(aid: string, via: RequestVia, error?: unknown): void {
  if (error === undefined) {
    countChat("ok", via, aid);
    return;
  }
  // A database failure reaches here as the driver's error; the client gets it as a 503.
  const code =
    error instanceof AppError
      ? error.code
      : isDatabaseUnavailable(error)
        ? "database_unavailable"
        : undefined;
  const outcome = (code && OUTCOMES[code]) || "error";
  countChat(outcome, via, aid);
  if (outcome === "quota" && error instanceof AppError)
    metrics.refusals.inc({ kind: "quota", limit: String(error.extras.limit ?? "unknown") });
  if (outcome === "rate") metrics.refusals.inc({ kind: "rate", limit: "rate_limit_rpm" });
}

type EndContext = DataContext & {
  config: Config;
  caller: Caller;
  requestId?: string;
  /** The client's keyed address hash (absent for a chat made without HTTP). */
  client?: string;
};

/** When a chat request reached the engine: the instant it is logged at, and a timer's start. */
export type Begun = { at: Date; mark: number };

export const beginChat = (ctx: Pick<DataContext, "clock">): Begun => ({
  at: ctx.clock.now(),
  mark: performance.now(),
});

/** Where every chat ends, once: its outcome counted and its row put in the request log. */
export function endChat(
  ctx: EndContext,
  chat: { aid: string; chatId: string; via: RequestVia; begun: Begun },
  outcome: { reply: ChatReply } | { error: unknown },
): void {
  const failed = "error" in outcome;
  recordChat(chat.aid, chat.via, failed ? outcome.error : undefined);
  const problem = failed ? problemFromError(outcome.error) : undefined;
  const usage = failed ? undefined : outcome.reply.usage;
  recordRequest(ctx, {
    started_at: chat.begun.at,
    via: chat.via,
    aid: chat.aid,
    caller: callerId(ctx.caller),
    chat_id: chat.chatId,
    status: problem?.status ?? 200,
    code: problem?.code ?? null,
    latency_ms: Math.round(performance.now() - chat.begun.mark),
    model: failed ? null : outcome.reply.model,
    endpoint: failed ? null : outcome.reply.endpoint,
    input_tokens: usage?.input_tokens ?? null,
    output_tokens: usage?.output_tokens ?? null,
    cost: usage?.cost ?? null,
    request_id: ctx.requestId ?? null,
    // Anyone can name an aid no agent has, under any key id: such refusals are sampled by the
    // client's address, whatever the caller claims to be.
    client: ctx.client,
  });
}
