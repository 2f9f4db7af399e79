import { z } from "zod";
import { rateLimitSchema } from "@/server/chat/schema";
import { storableString } from "@/server/kit/text";
import { askedModelSchema } from "@/server/openai-models/schema";

/**
 * OpenAI's Responses API, with an agent's aid as `model`. As for chat completions, what the
 * service cannot honour is refused with 400 naming it, never ignored: unknown fields, client
 * tools, formats other than text.
 */

/** Items an input may hold; the body's own bound is usually reached first. */
export const MAX_INPUT_ITEMS = 2000;

const TEXT_ONLY =
  'must be a string or a list of text parts ({"type": "input_text", "text": "..."}); images, audio and files are not taken';

const inputTextSchema = z.strictObject({
  type: z.enum(["input_text", "output_text"]),
  text: storableString(),
  annotations: z.array(z.unknown()).max(0).optional(),
});

const contentSchema = z.union([storableString(), z.array(inputTextSchema).min(1).max(100)], {
  error: TEXT_ONLY,
});

/** A message of the input: the one kind of item this service takes. */
export const inputMessageSchema = z.strictObject({
  type: z.literal("message").optional(),
  role: z.enum(["user", "assistant", "system", "developer"], {
    error:
      "must be user, assistant, system or developer: function calls and their outputs answer client tools, which this service does not take",
  }),
  content: contentSchema,
  id: z.string().max(200).optional(),
  status: z.enum(["completed", "in_progress", "incomplete"]).optional(),
});

export type InputMessage = z.infer<typeof inputMessageSchema>;

const tokens = z
  .int("must be a whole number of tokens from 1 up")
  .min(16, "must be at least 16 tokens")
  .max(1_000_000_000, "is more tokens than any model writes")
  .nullish()
  .meta({ description: "Tokens the reply may have, at most the service's limit." });

const metadataSchema = z
  .record(
    storableString().max(64, "keys must be at most 64 characters"),
    storableString().max(512, "values must be at most 512 characters"),
  )
  .refine((value) => Object.keys(value).length <= 16, "must hold at most 16 keys")
  .nullish();

export const responseRequestSchema = z
  .strictObject({
    model: askedModelSchema,
    input: z
      .union([
        storableString().min(1, "must not be empty"),
        z
          .array(inputMessageSchema)
          .min(1, "must hold at least one item")
          .max(MAX_INPUT_ITEMS, `must hold at most ${MAX_INPUT_ITEMS.toLocaleString("en")} items`),
      ])
      .meta({
        description:
          "The question as a string, or messages ending with the user's. Read after the conversation of previous_response_id.",
      }),
    instructions: storableString().nullish().meta({
      description:
        "Instructions for this response, given to the model after the agent's own, which they never replace. Not carried over to the next response.",
    }),
    previous_response_id: z.string().max(200).nullish().meta({
      description:
        "A response of this caller and agent to continue: its conversation comes before the input.",
    }),
    store: z.boolean().nullish().meta({
      description:
        "false: the response is not kept (it cannot be read back or continued). Default true.",
    }),
    stream: z.boolean().nullish(),
    stream_options: z.looseObject({}).nullish(),
    max_output_tokens: tokens,
    temperature: z.number().min(0, "must be from 0 to 2").max(2, "must be from 0 to 2").nullish(),
    top_p: z.number().min(0, "must be from 0 to 1").max(1, "must be from 0 to 1").nullish(),
    metadata: metadataSchema,
    user: storableString().max(256).nullish(),
    safety_identifier: storableString().max(256).nullish(),
    prompt_cache_key: storableString().max(256).nullish(),
    truncation: z.enum(["auto", "disabled"]).nullish(),
    parallel_tool_calls: z.boolean().nullish(),
    tool_choice: z
      .enum(["none", "auto"], { error: "must be none or auto: this service takes no client tools" })
      .nullish(),
    tools: z
      .array(z.unknown())
      .max(0, "are not taken: an agent's tools are its own MCP servers', called inside the service")
      .nullish(),
    text: z
      .strictObject({
        format: z
          .strictObject({
            type: z.literal("text", { error: "must be text: this service answers in text" }),
          })
          .optional(),
        verbosity: z.enum(["low", "medium", "high"]).nullish(),
      })
      .nullish(),
    background: z.boolean().nullish().meta({
      description:
        "true: answered in the background, on after the request ends (the response is `in_progress` until it has ended); read it, stream it from any point and cancel it by its id. Needs store.",
    }),
    include: z.array(z.string()).max(0, "is not available from this service").nullish(),
    reasoning: z.null({ error: "is not available from this service" }).optional(),
  })
  .superRefine((request, ctx) => {
    if (request.background === true && request.store === false)
      ctx.addIssue({
        code: "custom",
        path: ["background"],
        message: "needs store: a background response is read back by its id, so it is kept",
      });
    if (typeof request.input === "string") return;
    const last = request.input.at(-1);
    if (last && last.role !== "user")
      ctx.addIssue({
        code: "custom",
        path: ["input", request.input.length - 1, "role"],
        message: "must be user: the input ends with the question the agent answers",
      });
  })
  .meta({ id: "ResponseRequest" });

export type ResponseRequest = z.output<typeof responseRequestSchema>;

const usageSchema = z.object({
  input_tokens: z.int(),
  input_tokens_details: z.object({ cached_tokens: z.int() }),
  output_tokens: z.int(),
  output_tokens_details: z.object({ reasoning_tokens: z.int() }),
  total_tokens: z.int(),
});

export const outputMessageSchema = z.object({
  type: z.literal("message"),
  id: z.string(),
  status: z.enum(["completed", "in_progress", "incomplete"]),
  role: z.literal("assistant"),
  content: z.array(
    z.object({
      type: z.literal("output_text"),
      text: z.string(),
      annotations: z.array(z.never()),
    }),
  ),
});

/**
 * OpenAI's item for an MCP tool call that waits for an approval; here it is decided with
 * POST /agents/{aid}/approvals/{id}, by the admin or the agent key that asked.
 */
export const approvalRequestItemSchema = z.object({
  type: z.literal("mcp_approval_request"),
  id: z.string().meta({ description: "The approval's id, for POST /agents/{aid}/approvals/{id}." }),
  server_label: z.string(),
  name: z.string(),
  arguments: z.string().meta({ description: "The arguments as JSON text." }),
});

export type OutputMessage = z.infer<typeof outputMessageSchema>;
export type OutputItem = OutputMessage | z.infer<typeof approvalRequestItemSchema>;

export const responseObjectSchema = z
  .object({
    id: z.string(),
    object: z.literal("response"),
    created_at: z.int().meta({ description: "When it was asked, in Unix seconds." }),
    status: z.enum(["completed", "in_progress", "incomplete", "failed", "cancelled"]),
    model: z.string().meta({ description: "The agent's aid." }),
    output: z.array(z.union([outputMessageSchema, approvalRequestItemSchema])),
    usage: usageSchema.nullable(),
    instructions: z.string().nullable(),
    previous_response_id: z.string().nullable(),
    store: z.boolean(),
    metadata: z.record(z.string(), z.string()),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    incomplete_details: z.object({ reason: z.string() }).nullable(),
    max_output_tokens: z.int().nullable(),
    temperature: z.number().nullable(),
    top_p: z.number().nullable(),
    parallel_tool_calls: z.boolean(),
    tool_choice: z.string(),
    tools: z.array(z.never()),
    text: z.object({ format: z.object({ type: z.literal("text") }) }),
    truncation: z.enum(["auto", "disabled"]),
    background: z.boolean(),
  })
  .meta({ id: "Response" });

export type ResponseObject = z.infer<typeof responseObjectSchema>;

/** What the non-streamed procedure gives: the response, and the caller's standing (headers). */
export const responseResultSchema = z.object({
  response: responseObjectSchema,
  rate_limit: rateLimitSchema,
});

export const responseIdInputSchema = z.strictObject({ id: z.string().min(1).max(200) });

/** GET /v1/responses/{id}: the response, or (stream=true, background responses) its events. */
export const responseReadInputSchema = z.strictObject({
  id: z.string().min(1).max(200),
  stream: z.stringbool().optional().meta({
    description:
      "true: a background response's events, from the first (or after `starting_after`) to its end.",
  }),
  starting_after: z.coerce.number().int().min(-1).max(1_000_000_000).optional().meta({
    description: "The sequence_number of the last event received; those after it are sent.",
  }),
});

export const inputItemsInputSchema = z.strictObject({
  id: z.string().min(1).max(200),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  order: z.enum(["asc", "desc"]).default("desc"),
  after: z.string().max(200).optional(),
});

export const inputItemSchema = z.object({
  type: z.literal("message"),
  id: z.string(),
  status: z.literal("completed"),
  role: z.enum(["user", "assistant", "system", "developer"]),
  content: z.array(z.object({ type: z.enum(["input_text", "output_text"]), text: z.string() })),
});

export const inputItemListSchema = z
  .object({
    object: z.literal("list"),
    data: z.array(inputItemSchema),
    first_id: z.string().nullable(),
    last_id: z.string().nullable(),
    has_more: z.boolean(),
  })
  .meta({ id: "ResponseInputItemList" });

export const deletedResponseSchema = z.object({
  id: z.string(),
  object: z.literal("response"),
  deleted: z.literal(true),
});
