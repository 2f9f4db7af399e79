import { z } from "zod";
import { type PendingApproval, pendingApprovalSchema } from "@/server/approvals/schema";
import { rateLimitSchema } from "@/server/chat/schema";
import { storableString } from "@/server/kit/text";
import { askedModelSchema } from "@/server/openai-models/schema";

/**
 * OpenAI's chat completion request and answers, with an agent's aid as `model`. Optional fields
 * take null as absent, as OpenAI's API does. What the service cannot honour is refused by name,
 * never ignored: unknown fields, `n` other than 1, client tools, log probabilities.
 */

/** Messages a request may hold; the body's own bound (256 KiB) is usually reached first. */
export const MAX_MESSAGES = 2000;

const TEXT_CONTENT_RULE =
  'must be a string or a list of text parts ({"type": "text", "text": "..."}); images, audio and files are not taken';

const textPartSchema = z.strictObject({ type: z.literal("text"), text: storableString() });

const contentSchema = z.union([storableString(), z.array(textPartSchema).min(1).max(100)], {
  error: TEXT_CONTENT_RULE,
});

const messageSchema = z.discriminatedUnion(
  "role",
  [
    z.strictObject({ role: z.enum(["system", "developer"]), content: contentSchema }),
    z.strictObject({ role: z.literal("user"), content: contentSchema }),
    z.strictObject({ role: z.literal("assistant"), content: contentSchema }),
  ],
  {
    error:
      "must be system, developer, user or assistant: tool messages answer client tools, which this service does not take (an agent's own tools run inside it)",
  },
);

export type CompletionMessage = z.infer<typeof messageSchema>;

const tokens = (what: string) =>
  z
    .int(`must be a whole number of tokens from 1 up`)
    .min(1, "must be a whole number of tokens from 1 up")
    .max(1_000_000_000, "is more tokens than any model writes")
    .nullish()
    .meta({ description: what });

const penalty = z.number().min(-2, "must be from -2 to 2").max(2, "must be from -2 to 2").nullish();

/** How deep and how large a response_format's schema may be: more than any real schema needs. */
export const JSON_SCHEMA_MAX_DEPTH = 32;
export const JSON_SCHEMA_MAX_CHARS = 32 * 1024;

/**
 * Bounds a client's JSON value before anything walks it recursively: its depth is measured
 * without recursion (a value nested thousands deep overflows the stack of JSON.stringify), then
 * its size.
 */
function boundedJson(value: unknown, context: z.RefinementCtx): void {
  const pending: Array<[unknown, number]> = [[value, 1]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop() as [unknown, number];
    if (typeof item !== "object" || item === null) continue;
    if (depth > JSON_SCHEMA_MAX_DEPTH) {
      context.addIssue({
        code: "custom",
        message: `must be nested at most ${JSON_SCHEMA_MAX_DEPTH} levels deep`,
      });
      return;
    }
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  if (JSON.stringify(value).length > JSON_SCHEMA_MAX_CHARS)
    context.addIssue({
      code: "custom",
      message: `must be at most ${JSON_SCHEMA_MAX_CHARS / 1024} KiB as JSON`,
    });
}

export const completionRequestSchema = z
  .strictObject({
    model: askedModelSchema,
    messages: z
      .array(messageSchema, { error: "is required: the conversation, a list of messages" })
      .min(1, "must hold at least one message")
      .max(MAX_MESSAGES, `must hold at most ${MAX_MESSAGES.toLocaleString("en")} messages`)
      .meta({
        description:
          "The conversation, ending with the user's message. The agent's own instructions come first and are never replaced; system and developer messages follow them.",
      }),
    stream: z.boolean().nullish(),
    stream_options: z.strictObject({ include_usage: z.boolean().nullish() }).nullish(),
    max_tokens: tokens("Tokens the reply may have, at most the service's limit."),
    max_completion_tokens: tokens("The same as max_tokens (OpenAI's newer name)."),
    temperature: z.number().min(0, "must be from 0 to 2").max(2, "must be from 0 to 2").nullish(),
    top_p: z.number().min(0, "must be from 0 to 1").max(1, "must be from 0 to 1").nullish(),
    stop: z
      .union([storableString(), z.array(storableString()).max(4, "must hold at most 4 sequences")])
      .nullish(),
    seed: z.int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER).nullish(),
    user: storableString().max(256, "must be at most 256 characters").nullish().meta({
      description:
        "Taken and not used: the service knows its callers by key or address, and sends no end user's id to the provider.",
    }),
    frequency_penalty: penalty,
    presence_penalty: penalty,
    response_format: z
      .discriminatedUnion("type", [
        z.strictObject({ type: z.enum(["text", "json_object"]) }),
        z.strictObject({
          type: z.literal("json_schema"),
          json_schema: z.looseObject({ name: z.string().max(64) }).superRefine(boundedJson),
        }),
      ])
      .nullish(),
    n: z
      .literal(1, { error: "must be 1: this service answers with one choice" })
      .nullish()
      .meta({ description: "Only 1." }),
    tools: z
      .array(z.unknown())
      .max(0, "are not taken: an agent's tools are its own MCP servers', called inside the service")
      .nullish()
      .meta({ description: "Only an empty list: client tools are refused." }),
    tool_choice: z
      .enum(["none", "auto"], {
        error: "must be none or auto: this service takes no client tools",
      })
      .nullish(),
    logprobs: z
      .literal(false, { error: "are not available from this service" })
      .nullish()
      .meta({ description: "Only false." }),
  })
  .superRefine((request, ctx) => {
    if (request.stream_options && request.stream !== true)
      ctx.addIssue({
        code: "custom",
        path: ["stream_options"],
        message: "is only allowed with stream: true",
      });
    const last = request.messages.at(-1);
    if (last && last.role !== "user")
      ctx.addIssue({
        code: "custom",
        path: ["messages", request.messages.length - 1, "role"],
        message: "must be user: the conversation ends with the question the agent answers",
      });
    if (
      request.max_tokens != null &&
      request.max_completion_tokens != null &&
      request.max_tokens !== request.max_completion_tokens
    )
      ctx.addIssue({
        code: "custom",
        path: ["max_completion_tokens"],
        message: "must equal max_tokens when both are given",
      });
  })
  .meta({ id: "ChatCompletionRequest" });

export type CompletionRequest = z.output<typeof completionRequestSchema>;

export const finishReasonSchema = z.enum(["stop", "length", "content_filter"]);

export const completionUsageSchema = z
  .object({
    prompt_tokens: z.int(),
    completion_tokens: z.int(),
    total_tokens: z.int(),
  })
  .meta({ id: "CompletionUsage" });

export const chatCompletionSchema = z
  .object({
    id: z.string(),
    object: z.literal("chat.completion"),
    created: z.int().meta({ description: "When the question was asked, in Unix seconds." }),
    model: z.string().meta({ description: "The agent's aid." }),
    choices: z.array(
      z.object({
        index: z.literal(0),
        message: z.object({
          role: z.literal("assistant"),
          content: z.string(),
          refusal: z.null(),
        }),
        finish_reason: finishReasonSchema,
        logprobs: z.null(),
      }),
    ),
    usage: completionUsageSchema,
    approvals: z.array(pendingApprovalSchema).optional().meta({
      description:
        "Not OpenAI's: present when the agent's turn waits for tool calls to be approved (POST /agents/{aid}/approvals/{id}); `content` is what it said so far, and the rest is stored in its thread once they are decided.",
    }),
  })
  .meta({ id: "ChatCompletion" });

export type ChatCompletion = z.infer<typeof chatCompletionSchema>;

/** One event of a streamed completion (`data:` of the event stream). */
export type ChatCompletionChunk = {
  id: string;
  object: "chat.completion.chunk";
  created: number;
  model: string;
  choices: {
    index: 0;
    delta: { role?: "assistant"; content?: string };
    finish_reason: z.infer<typeof finishReasonSchema> | null;
    logprobs: null;
  }[];
  usage?: z.infer<typeof completionUsageSchema> | null;
  /** On the chunk with `finish_reason`, when the turn waits for approvals (as the completion). */
  approvals?: PendingApproval[];
};

/** What the non-streamed procedure gives: the completion, and the caller's rate-limit standing (headers). */
export const completionResultSchema = z.object({
  completion: chatCompletionSchema,
  rate_limit: rateLimitSchema,
});
