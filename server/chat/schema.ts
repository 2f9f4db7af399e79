import { z } from "zod";
import { lookupAidSchema, quotaSchema } from "@/server/agents/schema";
import { pageParams } from "@/server/pagination/schema";
import { NUL_RULE, withoutNul } from "@/server/text";

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

export const chatInputSchema = z.strictObject({
  aid: lookupAidSchema,
  q: z
    .string({
      error: `is required: the message, 1 to ${Q_MAX_LENGTH.toLocaleString("en")} characters`,
    })
    .min(1, `is required: the message, 1 to ${Q_MAX_LENGTH.toLocaleString("en")} characters`)
    .max(Q_MAX_LENGTH, `must be at most ${Q_MAX_LENGTH.toLocaleString("en")} characters`)
    .refine(withoutNul, NUL_RULE),
  chat_id: chatIdSchema.default(DEFAULT_CHAT_ID),
});

export type ChatInput = z.output<typeof chatInputSchema>;

const remainingSchema = z
  .object({
    messages_total: z.int().nullable(),
    messages_monthly: z.int().nullable(),
    messages_daily: z.int().nullable(),
  })
  .meta({ description: "Messages the agent may still receive in each period; null = unlimited." });

export const chatReplySchema = z
  .object({
    aid: z.string(),
    chat_id: z.string(),
    reply: z.string(),
    quota: quotaSchema,
    remaining: remainingSchema,
  })
  .meta({ id: "ChatReply" });

export type ChatReply = z.infer<typeof chatReplySchema>;

/** The events of a streamed reply: one start, deltas in order, one done. */
export type ChatEvent =
  | { type: "start"; aid: string; chat_id: string }
  | { type: "delta"; text: string }
  | ({ type: "done" } & ChatReply);

const isoDateTime = z.iso.datetime({ offset: true });

export const chatMessageSchema = z.object({
  id: z.int(),
  role: z.enum(["user", "assistant"]),
  content: z.string(),
  created_at: isoDateTime,
});

export const listMessagesInputSchema = z.strictObject({
  aid: lookupAidSchema,
  chat_id: chatIdSchema.default(DEFAULT_CHAT_ID),
  ...pageParams(500, 50),
});

export const listMessagesOutputSchema = z.object({
  /** In the order they were written; the page is the newest `limit` before the cursor. */
  messages: z.array(chatMessageSchema),
  next_cursor: z.string().nullable(),
});

export const chatThreadSchema = z.object({
  chat_id: z.string(),
  message_count: z.int(),
  created_at: isoDateTime,
  last_message_at: isoDateTime,
});

export const listThreadsInputSchema = z.strictObject({
  aid: lookupAidSchema,
  ...pageParams(500, 50),
});

export const listThreadsOutputSchema = z.object({
  threads: z.array(chatThreadSchema),
  next_cursor: z.string().nullable(),
});
