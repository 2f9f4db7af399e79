import type { PendingApproval } from "@/server/approvals";
import type { ModelReply } from "@/server/model-call";
import type { Quota } from "@/server/quota";
import type { ChatReply } from "./schema";

/** A chat's reply as every way in shows it: completed, or waiting for `approvals`. */
export function replyOf(
  ask: { aid: string; chatId: string },
  reply: ModelReply,
  standing: { cost: number | null; quota: Quota; rateLimit: ChatReply["rate_limit"] },
  approvals: PendingApproval[] = [],
): ChatReply {
  return {
    aid: ask.aid,
    chat_id: ask.chatId,
    reply: reply.text,
    model: reply.model,
    endpoint: reply.endpoint,
    finish_reason: reply.finishReason,
    usage: { ...reply.usage, cost: standing.cost },
    quota: standing.quota,
    remaining: remainingMessages(standing.quota),
    rate_limit: standing.rateLimit,
    tool_calls: reply.toolCalls,
    status: approvals.length > 0 ? "requires_approval" : "completed",
    approvals,
  };
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

/**
 * For ways in with no place for pending calls (text/plain, MCP, A2A): which calls wait, on whom,
 * and where the reply goes once they are decided.
 */
export function waitingSentence(reply: Pick<ChatReply, "aid" | "chat_id" | "approvals">): string {
  const calls = reply.approvals.map((a) => `'${a.tool}' (approval ${a.id})`).join(", ");
  return `The agent is waiting for a person to approve its call of ${calls}: POST /agents/${reply.aid}/approvals/{id}. Its reply is then stored in thread '${reply.chat_id}'.`;
}

/** The reply's text, and when it waits for approvals, what waits. */
export function replyText(
  reply: Pick<ChatReply, "aid" | "chat_id" | "approvals" | "reply">,
): string {
  if (reply.approvals.length === 0) return reply.reply;
  return reply.reply ? `${reply.reply}\n\n${waitingSentence(reply)}` : waitingSentence(reply);
}
