import { z } from "zod";
import { lookupAidSchema, quotaSchema } from "@/server/agents/schema";
import { AUTONOMOUS_THREAD } from "@/server/conversations/threads";
import { isoDateTime } from "@/server/iso-date-time";
import { usageSchema } from "@/server/model-call/usage";
import { pageParams } from "@/server/pagination/schema";
import { NUL_RULE, withoutNul } from "@/server/text";
import { type ToolCall, toolCallsSchema } from "@/server/tools/schema";

/** Chat schemas, defined once for the procedures, the REST handler, OpenAPI and the dashboard. */

export const Q_MAX_LENGTH = 10_000;
export const DEFAULT_CHAT_ID = "default";
export const CHAT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/;

const CHAT_ID_RULE =
  "a thread name is 1 to 128 characters: letters, digits and . _ : @ - (not first)";

export const chatIdSchema = z
  .string({ error: CHAT_ID_RULE })
  .regex(CHAT_ID_PATTERN, CHAT_ID_RULE)
  .meta({ description: `Conversation thread; ${CHAT_ID_RULE}.`, examples: ["default"] });

/**
 * A thread chat may write to: any but the autonomous one, whose history every autonomous run is
 * given (a chat there would put words in the agent's own mouth). It can still be read.
 */
const chatThreadIdSchema = chatIdSchema.refine(
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
    usage: usageSchema,
    quota: quotaSchema,
    remaining: remainingSchema,
    rate_limit: rateLimitSchema,
    tool_calls: toolCallsSchema.meta({
      description:
        "The tools the model called before replying, in order, with their results or errors; empty when it called none.",
    }),
  })
  .meta({ id: "ChatReply" });

export type ChatReply = z.infer<typeof chatReplySchema>;

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

export const chatMessageSchema = z.object({
  id: z.int(),
  role: z.enum(["user", "assistant"]),
  content: z.string(),
  created_at: isoDateTime,
  usage: usageSchema
    .nullable()
    .meta({ description: "The tokens of the call that wrote a reply; null on questions." }),
  tool_calls: toolCallsSchema.meta({
    description: "The tool calls made before a reply, with their results; empty on questions.",
  }),
});

/** A thread's owner as stored (see chat_threads.caller); the admin's own by default. */
const threadCallerSchema = z
  .string()
  .min(1)
  .max(200)
  .refine(withoutNul, NUL_RULE)
  .meta({
    description:
      "Whose thread: `admin`, `key:<key id>`, `addr:<address hash>`, `wallet:<address>`, `agent` (autonomous runs) or `shared` (threads from before threads had owners), as `caller` in the thread list.",
    examples: ["admin", "key:3f9a1c0d2b4e"],
  });

export const listMessagesInputSchema = z.strictObject({
  aid: lookupAidSchema,
  caller: threadCallerSchema.default("admin"),
  chat_id: chatIdSchema.default(DEFAULT_CHAT_ID),
  ...pageParams(500, 50),
});

export const listMessagesOutputSchema = z.object({
  /** In the order they were written; the page is the newest `limit` before the cursor. */
  messages: z.array(chatMessageSchema),
  next_cursor: z.string().nullable(),
});

export const chatThreadSchema = z.object({
  caller: z.string(),
  caller_label: z.string().meta({
    description:
      "Who the thread belongs to, for people: a key's name, a short hash of a client address (never the address), a wallet, `admin`, `autonomous runs` or `shared (before thread owners)`.",
  }),
  chat_id: z.string(),
  message_count: z.int(),
  created_at: isoDateTime,
  last_message_at: isoDateTime,
});

export const listThreadsInputSchema = z.strictObject({
  aid: lookupAidSchema,
  caller: threadCallerSchema.optional().meta({ description: "Only this caller's threads." }),
  ...pageParams(500, 50),
});

export const listThreadsOutputSchema = z.object({
  threads: z.array(chatThreadSchema),
  next_cursor: z.string().nullable(),
});
