import { z } from "zod";
import { lookupAidSchema } from "@/server/kit/agent-id";
import { INSTANT_RANGE, instant, wholeNumberParam } from "@/server/kit/bounds";
import { isoDateTime } from "@/server/kit/iso-date-time";
import { NUL_RULE, withoutNul } from "@/server/kit/text";
import { pageParams } from "@/server/pagination/schema";
import { FAILED_STATUSES, REQUEST_VIAS } from "./view";

const STATUS_RULE = `must be an HTTP status from 100 to 599, or \`${FAILED_STATUSES}\` for every status but 200`;

const statusFilter = z
  .union(
    [
      z.literal(FAILED_STATUSES),
      // A number from tRPC, text from a query string: both are read as the number they spell.
      wholeNumberParam(100, 599, "an HTTP status"),
    ],
    { error: STATUS_RULE },
  )
  .meta({
    description: `Only requests that ended with this HTTP status (e.g. 429), or \`${FAILED_STATUSES}\`: every one that did not deliver a reply (any status but 200).`,
    examples: [429, FAILED_STATUSES],
  });

const when = (what: string) =>
  instant()
    .transform((value) => new Date(value))
    .optional()
    .meta({ description: `${what} (${INSTANT_RANGE}).` });

export const listRequestsInputSchema = z
  .strictObject({
    aid: lookupAidSchema
      .optional()
      .meta({ description: "Only this agent's requests (a deleted agent's too)." }),
    caller: z
      .string()
      .min(1, "must not be empty")
      .max(200, "must be at most 200 characters")
      .refine(withoutNul, NUL_RULE)
      .optional()
      .meta({
        description:
          "Only this caller's requests, as `caller` in the answer: `admin`, `key:<key id>`, `addr:<address hash>` or `wallet:<address>`.",
        examples: ["key:3f9a1c0d2b4e"],
      }),
    status: statusFilter.optional(),
    from: when("Only requests started at or after this instant"),
    to: when("Only requests started before this instant"),
    ...pageParams(500, 50),
  })
  .superRefine((input, ctx) => {
    if (input.from && input.to && input.from.getTime() >= input.to.getTime())
      ctx.addIssue({ code: "custom", path: ["to"], message: "must be after from" });
  });

export const requestRecordSchema = z
  .object({
    id: z.int(),
    started_at: isoDateTime.meta({ description: "When the chat engine took the request." }),
    via: z.enum(REQUEST_VIAS).meta({
      description:
        "`chat`: GET /{aid}/chat (or the dashboard's chat); `completions`: POST /v1/chat/completions; `mcp`: the agent's MCP tool `chat` (POST /{aid}/mcp); `responses`: POST /v1/responses; `a2a`: a message to the agent's A2A server (POST /{aid}/a2a).",
    }),
    aid: z.string(),
    caller: z.string().meta({
      description:
        "Who asked, as threads store it: `admin`, `key:<key id>`, `addr:<address hash>` or `wallet:<address>`.",
    }),
    caller_label: z.string().meta({
      description:
        "Who asked, for people, as in the thread list (a key's name, a short address hash, a wallet).",
    }),
    chat_id: z
      .string()
      .meta({ description: "The thread the exchange was (or would have been) stored in." }),
    status: z.int().meta({
      description:
        "200 for a delivered reply, else the refusal's or failure's status (499: the client left). For a stream that failed after it began, its `error` event's.",
    }),
    code: z.string().nullable().meta({
      description: "The problem's code (e.g. `quota_exceeded`, `provider_timeout`); null for 200.",
    }),
    latency_ms: z
      .int()
      .meta({ description: "From the request reaching the chat engine to its end." }),
    model: z.string().nullable().meta({
      description: "The model that wrote the stored reply; null without one.",
    }),
    endpoint: z.string().nullable().meta({
      description:
        "The agent's model endpoint that answered (its name); null without a reply, or when the service's configured provider did.",
    }),
    input_tokens: z.int().nullable().meta({ description: "The stored reply's; null without one." }),
    output_tokens: z.int().nullable(),
    cost: z.number().nullable().meta({
      description:
        "What the reply's tokens cost at its model's price; null without a reply or a price.",
    }),
    request_id: z.string().nullable().meta({
      description: "The request's id (its X-Request-Id); null for a chat made without HTTP.",
    }),
    stands_for: z.int().meta({
      description:
        "The requests this entry stands for: 1, except for refusals naming an aid no agent has, which are sampled past the first 100 a client sends in an hour (one entry for every 10, then every 100, …); such an entry stands for those since the one before it.",
    }),
  })
  .meta({ id: "RequestRecord" });

export type RequestRecord = z.infer<typeof requestRecordSchema>;

export const listRequestsOutputSchema = z.object({
  requests: z.array(requestRecordSchema),
  next_cursor: z
    .string()
    .nullable()
    .meta({ description: "The next (older) page's cursor; null on the last." }),
  prev_cursor: z
    .string()
    .nullable()
    .meta({ description: "The page before this one (newer); null on the first." }),
});

export const BREAKDOWN_BY = ["model", "key"] as const;

export const requestBreakdownInputSchema = z
  .strictObject({
    by: z.enum(BREAKDOWN_BY, { error: "must be `model` or `key`" }).meta({
      description:
        "`model`: by the model that wrote each reply; `key`: by the agent key that asked (callers without a key grouped by kind: anonymous addresses, the admin, wallets).",
    }),
    aid: lookupAidSchema.optional().meta({
      description:
        "Only this agent's requests (refusals naming an aid no agent has count only without it).",
    }),
    from: when("From this instant"),
    to: when("Before this instant"),
  })
  .superRefine((input, ctx) => {
    if (input.from && input.to && input.from.getTime() >= input.to.getTime())
      ctx.addIssue({ code: "custom", path: ["to"], message: "must be after from" });
  });

export const requestBreakdownSchema = z
  .object({
    by: z.enum(BREAKDOWN_BY),
    groups: z.array(
      z.object({
        group: z.string().nullable().meta({
          description:
            "The model, or `key:<id>` (an agent key, for its requests that got past the key: replies, and refusals by quota, rate limit or provider) / `key` (every other request with an agent key: invalid ones, those naming no agent, those refused before the key was read) / `addr` / `admin` / `wallet`; null for requests refused before a model answered (by model).",
        }),
        label: z.string().meta({ description: "The group for people." }),
        requests: z.int().meta({
          description: "Requests, counting what each sampled entry stands for (`stands_for`).",
        }),
        delivered: z.int().meta({ description: "Of them, replies delivered (status 200)." }),
        input_tokens: z.int(),
        output_tokens: z.int(),
        cost: z
          .number()
          .nullable()
          .meta({ description: "Null when none of its replies had a price." }),
      }),
    ),
  })
  .meta({
    id: "RequestBreakdown",
    description:
      "Chat requests and their tokens and cost grouped by model or by key, most tokens first (100 groups at most), from the request log: its REQUEST_LOG_DAYS days at most.",
  });
