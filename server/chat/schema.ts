import { z } from "zod";
import { APPROVAL_DECISIONS, pendingApprovalSchema } from "@/server/approvals/schema";
import { lookupAidSchema } from "@/server/kit/agent-id";
import { NUL_RULE, withoutNul } from "@/server/kit/text";
import { usageSchema } from "@/server/model-call/schema";
import { quotaSchema } from "@/server/quota/schema";
import { AUTONOMOUS_THREAD, chatIdSchema, DEFAULT_CHAT_ID } from "@/server/threads/schema";
import { type ToolCall, toolCallsSchema } from "@/server/tools/schema";

export const Q_MAX_LENGTH = 10_000;

/**
 * A thread chat may write to: any but the autonomous one, whose history every autonomous run is
 * given (a chat there would put words in the agent's own mouth). It can still be read.
 */
export const chatThreadIdSchema = chatIdSchema.refine(
  (id) => id !== AUTONOMOUS_THREAD,
  `'${AUTONOMOUS_THREAD}' is the thread of the agent's autonomous runs; chat in another thread`,
);

export const chatInputSchema = z.strictObject({
  aid: lookupAidSchema,
  q: z
    .string({
      error: `is required: the message, 1 to ${Q_MAX_LENGTH.toLocaleString("en")} characters`,
    })
    .min(1, `is required: the message, 1 to ${Q_MAX_LENGTH.toLocaleString("en")} characters`)
    .max(Q_MAX_LENGTH, `must be at most ${Q_MAX_LENGTH.toLocaleString("en")} characters`)
    .refine(withoutNul, NUL_RULE),
  chat_id: chatThreadIdSchema.default(DEFAULT_CHAT_ID),
});

export type ChatInput = z.output<typeof chatInputSchema>;

/** GET /{aid}/chat with `Last-Event-ID`: the stream to resume, after that event. */
export const resumeChatInputSchema = z.strictObject({
  aid: lookupAidSchema,
  last_event_id: z.string().max(200),
});

/** POST /{aid}/chat/{request_id}/cancel: the chat named by its answer's X-Request-Id. */
export const cancelChatInputSchema = z.strictObject({
  aid: lookupAidSchema,
  request_id: z
    .string({ error: "must be the chat's X-Request-Id" })
    .regex(
      /^[A-Za-z0-9._:@-]{1,128}$/,
      "must be the chat's X-Request-Id: 1 to 128 letters, digits and ._:@-",
    )
    .meta({ description: "The X-Request-Id of the chat's answer (a completion's, a response's)." }),
});

export const cancelChatOutputSchema = z
  .object({ request_id: z.string(), cancelled: z.literal(true) })
  .meta({ id: "ChatCancelled" });

const remainingSchema = z
  .object({
    messages_total: z.int().nullable(),
    messages_monthly: z.int().nullable(),
    messages_daily: z.int().nullable(),
  })
  .meta({ description: "Messages the agent may still receive in each period; null = unlimited." });

export const rateLimitSchema = z
  .object({
    limit: z.int().meta({ description: "Chats a minute this caller may send to the agent." }),
    remaining: z.int(),
    reset_s: z.int().meta({ description: "Seconds until the window ends." }),
  })
  .nullable()
  .meta({
    id: "RateLimit",
    description:
      "The caller's rate-limit standing (also in the X-RateLimit-* headers); null when no limit applies.",
  });

export const chatReplySchema = z
  .object({
    aid: z.string(),
    chat_id: z.string(),
    reply: z.string(),
    model: z.string().meta({
      description:
        "The model that wrote the reply (the agent's, or LLM_MODEL when it has none; with model endpoints, the model of the endpoint that answered).",
    }),
    endpoint: z.string().nullable().meta({
      description:
        "The name of the agent's model endpoint that answered; null when the agent has none and the service's configured provider did.",
    }),
    finish_reason: z.enum(["stop", "length", "content_filter"]).meta({
      description:
        "Why the reply ended: `stop` (the model was done), `length` (cut at the token limit or at CHAT_MAX_REPLY_CHARS), `content_filter` (the provider withheld the rest).",
    }),
    usage: usageSchema,
    quota: quotaSchema,
    remaining: remainingSchema,
    rate_limit: rateLimitSchema,
    tool_calls: toolCallsSchema.meta({
      description:
        "The tools the model called before replying, in order, with their results or errors; empty when it called none.",
    }),
    status: z.enum(["completed", "requires_approval"]).meta({
      description:
        "`requires_approval`: the model asked for tool calls that wait for a person (`approvals`); `reply` is what it said so far, and the rest comes once they are decided (POST /agents/{aid}/approvals/{id}).",
    }),
    approvals: z.array(pendingApprovalSchema).meta({
      description: "The tool calls waiting for a decision; empty when `status` is `completed`.",
    }),
  })
  .meta({ id: "ChatReply" });

export type ChatReply = z.infer<typeof chatReplySchema>;

/** What a decision did: recorded, and when it was the turn's last, the turn went on. */
export const approvalDecisionSchema = z
  .object({
    id: z.uuid(),
    decision: z.enum(APPROVAL_DECISIONS),
    reason: z.string().nullable(),
    status: z.enum(["waiting", "completed", "requires_approval", "failed"]).meta({
      description:
        "`waiting`: other calls of the turn still wait for a decision. Otherwise the turn went on: `completed` (the reply is stored and counted), `requires_approval` (it asked for more), `failed` (its message given back, or its run failed).",
    }),
    reply: chatReplySchema.nullable().meta({
      description:
        "The chat's reply once it went on; null while waiting, on failure and for a run.",
    }),
    run_id: z.int().nullable().meta({ description: "The autonomous run it belongs to, if any." }),
    error: z
      .object({ code: z.string(), detail: z.string() })
      .nullable()
      .meta({ description: "Why the turn failed once it went on." }),
  })
  .meta({ id: "ApprovalDecision" });

export type ApprovalDecisionReply = z.infer<typeof approvalDecisionSchema>;

/**
 * The events of a streamed reply: one start, deltas in order, one done; between the deltas, a
 * `tool_call` when the model asks for a tool and a `tool_result` when it has answered.
 */
export type ChatEvent =
  | { type: "start"; aid: string; chat_id: string; rate_limit: z.infer<typeof rateLimitSchema> }
  | { type: "delta"; text: string }
  | ({ type: "tool_call" } & Pick<ToolCall, "id" | "step" | "server" | "name" | "arguments">)
  | ({ type: "tool_result" } & ToolCall)
  | ({ type: "done" } & ChatReply);
