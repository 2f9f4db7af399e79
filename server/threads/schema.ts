import { z } from "zod";
import { lookupAidSchema } from "@/server/kit/agent-id";
import { isoDateTime } from "@/server/kit/iso-date-time";
import { NUL_RULE, withoutNul } from "@/server/kit/text";
import { usageSchema } from "@/server/model-call/schema";
import { pageParams } from "@/server/pagination/schema";
import { toolCallsSchema } from "@/server/tools/schema";

// A thread belongs to a caller and is named by its chat_id.

/** The thread autonomous runs talk in, so each run sees the earlier ones as history. */
export const AUTONOMOUS_THREAD = "autonomous";

/**
 * The owner of the autonomous runs' thread. No chat caller can be it (callers are `admin`,
 * `key:…`, `addr:…` or `wallet:…`), so no chat reads or writes that thread.
 */
export const AGENT_CALLER = "agent";

export const DEFAULT_CHAT_ID = "default";
export const CHAT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/;

const CHAT_ID_RULE =
  "a thread name is 1 to 128 characters: letters, digits and . _ : @ - (not first)";

export const chatIdSchema = z
  .string({ error: CHAT_ID_RULE })
  .regex(CHAT_ID_PATTERN, CHAT_ID_RULE)
  .meta({ description: `Conversation thread; ${CHAT_ID_RULE}.`, examples: ["default"] });

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
