import { z } from "zod";
import { CHAT_ACCESS } from "@/db/enums";
import { INT4_MAX } from "@/server/bounds";
import { isoDateTime } from "@/server/iso-date-time";
import { includeTotalParam, pageOutputFields, pageParams } from "@/server/pagination/schema";
import { NUL_RULE, withoutNul } from "@/server/text";
import { maxToolStepsSchema, mcpServerSchema, mcpServersInputSchema } from "@/server/tools/schema";
import { AGENT_SORTS } from "./listing";

/**
 * The agent schemas, defined once: the tRPC procedures, the REST handlers, the OpenAPI
 * document and the dashboard forms all use these. Nothing here may import server-only code.
 */

export const AID_PATTERN = /^[a-z][a-z0-9-]*$/;
export const AID_MIN_LENGTH = 2;
export const AID_MAX_LENGTH = 67;

/** Agent IDs that would collide with the service's own top-level paths, now or later. */
export const RESERVED_AIDS: ReadonlySet<string> = new Set([
  "admin",
  "agents",
  "api",
  "assets",
  "auth",
  "chat",
  "dashboard",
  "docs",
  "favicon",
  "health",
  "login",
  "logout",
  "metrics",
  "nonce",
  "openapi",
  "prices",
  "problems",
  "public",
  "robots",
  "signin",
  "sign-in",
  "signout",
  "sign-out",
  "sitemap",
  "static",
  "status",
  "usage",
  "v1",
  "v2",
  "v3",
  "well-known",
]);

const AID_RULE = `an agent ID is ${AID_MIN_LENGTH} to ${AID_MAX_LENGTH} characters: a lowercase letter, then lowercase letters, digits or hyphens`;
const RESERVED_RULE = " is reserved for the service's own paths";

/**
 * Whether a field's problem is that it breaks the agent ID rule (aidSchema). `aid` is always an
 * agent's ID, but `id` is one only in an agent's body, where it is the alias of `aid`: elsewhere
 * it is a deployment's or a key's, whose problems are no "Invalid agent ID format".
 */
export function breaksAidRule(detail: string): boolean {
  return detail.includes(AID_RULE) || detail.endsWith(RESERVED_RULE);
}

/**
 * An aid to look up: any string may be asked for, since one that is malformed or reserved is
 * simply not found (404), not a 400.
 */
export const lookupAidSchema = z
  .string()
  .min(1)
  .max(AID_MAX_LENGTH * 4)
  .refine(withoutNul, NUL_RULE)
  .meta({ description: "The agent's ID (an unknown or malformed one is simply not found)." });

/** The input of the procedures that take one agent and nothing else. */
export const aidInputSchema = z.strictObject({ aid: lookupAidSchema });

export const aidSchema = z
  .string({ error: `must be a string; ${AID_RULE}` })
  .min(AID_MIN_LENGTH, AID_RULE)
  .max(AID_MAX_LENGTH, AID_RULE)
  .regex(AID_PATTERN, AID_RULE)
  .refine((aid) => !RESERVED_AIDS.has(aid), {
    error: (issue) => `'${String(issue.input)}'${RESERVED_RULE}`,
  })
  .meta({ description: AID_RULE, examples: ["support-bot"] });

/** The largest limit a counter (an `integer` column) can hold. */
const MAX_LIMIT = INT4_MAX;

const quotaLimit = z
  .int({ error: "must be a whole number from 0 up, or null for unlimited" })
  .min(0, "must be 0 or more, or null for unlimited")
  .max(MAX_LIMIT, `must be at most ${MAX_LIMIT}, or null for unlimited`)
  .nullable();

/** A token budget may be larger than a counter of uses: tokens are counted in bigint. */
const tokenLimit = z
  .int({ error: "must be a whole number of tokens from 0 up, or null for unlimited" })
  .min(0, "must be 0 or more, or null for unlimited")
  .max(Number.MAX_SAFE_INTEGER, `must be at most ${Number.MAX_SAFE_INTEGER}, or null for unlimited`)
  .nullable()
  .meta({ description: "Input + output tokens; null = unlimited." });

export const QUOTA_LIMIT_FIELDS = [
  "message_limit_total",
  "message_limit_monthly",
  "message_limit_daily",
  "autonomous_limit_total",
  "autonomous_limit_monthly",
  "token_limit_total",
  "token_limit_monthly",
  "token_limit_daily",
] as const;

export type QuotaLimitField = (typeof QUOTA_LIMIT_FIELDS)[number];

export const quotaLimitsInputSchema = z
  .strictObject({
    message_limit_total: quotaLimit.optional(),
    message_limit_monthly: quotaLimit.optional(),
    message_limit_daily: quotaLimit.optional(),
    autonomous_limit_total: quotaLimit.optional(),
    autonomous_limit_monthly: quotaLimit.optional(),
    token_limit_total: tokenLimit.optional(),
    token_limit_monthly: tokenLimit.optional(),
    token_limit_daily: tokenLimit.optional(),
  })
  .meta({ description: "Quota limits to set; null = unlimited. Omitted limits keep their value." });

const nullableText = (max: number, what: string) =>
  z
    .string({ error: `must be a string (${what}) or null` })
    .trim()
    .min(1, `must not be empty; send null to clear it`)
    .max(max, `must be at most ${max.toLocaleString("en")} characters`)
    .refine(withoutNul, NUL_RULE)
    .nullable();

export const AUTONOMOUS_MINUTES_MAX = 525_600;
const RATE_LIMIT_MAX = 1_000_000;

/** The configurable fields of an agent, each optional: an update keeps what it leaves out. */
const agentFields = {
  name: z
    .string({ error: "must be a string" })
    .trim()
    .min(1, "must not be empty")
    .max(200, "must be at most 200 characters")
    .refine(withoutNul, NUL_RULE),
  model: nullableText(200, "a model name").meta({
    description: "Model name passed to the provider; null = the provider's default model.",
  }),
  prompt: nullableText(20_000, "the system prompt"),
  temperature: z
    .number({ error: "must be a number from 0 to 2, or null" })
    .min(0, "must be a number from 0 to 2, or null")
    .max(2, "must be a number from 0 to 2, or null")
    .nullable(),
  autonomous_enabled: z.boolean({ error: "must be true or false" }),
  autonomous_minutes: z
    .int({ error: `must be a whole number of minutes from 1 to ${AUTONOMOUS_MINUTES_MAX}` })
    .min(1, `must be a whole number of minutes from 1 to ${AUTONOMOUS_MINUTES_MAX}`)
    .max(
      AUTONOMOUS_MINUTES_MAX,
      `must be a whole number of minutes from 1 to ${AUTONOMOUS_MINUTES_MAX}`,
    ),
  autonomous_prompt: nullableText(20_000, "the instruction for autonomous runs"),
  chat_access: z
    .enum(CHAT_ACCESS, { error: "must be `public` (anyone) or `key` (callers with a key)" })
    .meta({
      description:
        "Who may chat: `public`, anyone (a caller without a key is known by its client address); `key`, only callers that send one of the agent's keys as `Authorization: Bearer <key>`.",
    }),
  rate_limit_rpm: z
    .int({ error: `must be a whole number of chats a minute from 1 to ${RATE_LIMIT_MAX}, or null` })
    .min(1, `must be a whole number of chats a minute from 1 to ${RATE_LIMIT_MAX}, or null`)
    .max(
      RATE_LIMIT_MAX,
      `must be a whole number of chats a minute from 1 to ${RATE_LIMIT_MAX}, or null`,
    )
    .nullable()
    .meta({
      description:
        "Chats a minute per caller (each key, each client address); null = no limit. A caller's window opens with its first chat and lasts a minute.",
    }),
  mcp_servers: mcpServersInputSchema,
  max_tool_steps: maxToolStepsSchema,
};

/**
 * Body of POST /agents and input of `agents.upsert`. `id` is accepted as an alias of `aid`.
 * Unknown fields are refused, so a misspelt field is an error rather than silently ignored.
 */
export const agentInputSchema = z
  .strictObject({
    aid: aidSchema.optional(),
    id: aidSchema.optional().meta({ description: "Alias of aid." }),
    name: agentFields.name.optional(),
    model: agentFields.model.optional(),
    prompt: agentFields.prompt.optional(),
    temperature: agentFields.temperature.optional(),
    autonomous_enabled: agentFields.autonomous_enabled.optional(),
    autonomous_minutes: agentFields.autonomous_minutes.optional(),
    autonomous_prompt: agentFields.autonomous_prompt.optional(),
    chat_access: agentFields.chat_access.optional(),
    rate_limit_rpm: agentFields.rate_limit_rpm.optional(),
    mcp_servers: agentFields.mcp_servers.optional(),
    max_tool_steps: agentFields.max_tool_steps.optional(),
    quota: quotaLimitsInputSchema.optional(),
  })
  .check((ctx) => {
    const { aid, id } = ctx.value;
    if (aid === undefined && id === undefined) {
      ctx.issues.push({
        code: "custom",
        path: ["aid"],
        message: `is required; ${AID_RULE}`,
        input: ctx.value,
      });
    } else if (aid !== undefined && id !== undefined && aid !== id) {
      ctx.issues.push({
        code: "custom",
        path: ["id"],
        message: "differs from aid; send one of them",
        input: ctx.value,
      });
    }
  })
  .transform(({ id, aid, ...rest }) => ({ aid: (aid ?? id) as string, ...rest }));

export type AgentInput = z.output<typeof agentInputSchema>;

/** The rule that spans two fields, checked on the agent as it will be stored. */
export function autonomousPromptProblem(agent: {
  autonomous_enabled: boolean;
  autonomous_prompt: string | null;
}): string | undefined {
  return agent.autonomous_enabled && agent.autonomous_prompt === null
    ? "is required when autonomous_enabled is true"
    : undefined;
}

export const quotaSchema = z
  .object({
    message_count_total: z.int(),
    message_limit_total: z.int().nullable(),
    message_count_monthly: z.int(),
    message_limit_monthly: z.int().nullable(),
    message_count_daily: z.int(),
    message_limit_daily: z.int().nullable(),
    autonomous_count_total: z.int(),
    autonomous_limit_total: z.int().nullable(),
    autonomous_count_monthly: z.int(),
    autonomous_limit_monthly: z.int().nullable(),
    input_tokens_total: z.int(),
    output_tokens_total: z.int(),
    cost_total: z.number(),
    token_limit_total: z.int().nullable(),
    input_tokens_monthly: z.int(),
    output_tokens_monthly: z.int(),
    cost_monthly: z.number(),
    token_limit_monthly: z.int().nullable(),
    input_tokens_daily: z.int(),
    output_tokens_daily: z.int(),
    cost_daily: z.number(),
    token_limit_daily: z.int().nullable(),
    last_message_at: isoDateTime.nullable(),
    last_autonomous_at: isoDateTime.nullable(),
    daily_resets_at: isoDateTime,
    monthly_resets_at: isoDateTime,
  })
  .meta({
    id: "Quota",
    description:
      "Effective counts (a period that has rolled over counts 0) and limits (null = unlimited). Daily counters reset at 00:00 UTC, monthly ones on the 1st at 00:00 UTC. Tokens are those of delivered replies and succeeded runs; a token limit bounds input + output tokens. Costs are at the prices of `GET /prices` when each reply was stored (unpriced models add nothing).",
  });

export type Quota = z.infer<typeof quotaSchema>;

export const agentSchema = z
  .object({
    aid: z.string(),
    name: z.string(),
    model: z.string().nullable(),
    prompt: z.string().nullable(),
    temperature: z.number().nullable(),
    autonomous_enabled: z.boolean(),
    autonomous_minutes: z.int(),
    autonomous_prompt: z.string().nullable(),
    chat_access: z.enum(CHAT_ACCESS),
    rate_limit_rpm: z.int().nullable(),
    mcp_servers: z.array(mcpServerSchema).meta({
      description:
        'MCP servers whose tools the agent may call. Header secrets are never shown: a stored one is `{"secret": true, "hint"}`.',
    }),
    max_tool_steps: z.int(),
    autonomous_next_run_at: isoDateTime.nullable().meta({
      description: "When the next autonomous run is due; null while autonomous mode is off.",
    }),
    created_at: isoDateTime,
    updated_at: isoDateTime,
    quota: quotaSchema,
  })
  .meta({ id: "Agent" });

export type Agent = z.infer<typeof agentSchema>;

export const upsertAgentOutputSchema = z.object({ created: z.boolean(), agent: agentSchema });

export const listAgentsInputSchema = z.strictObject({
  ...pageParams(1000, 100),
  q: z
    .string()
    .trim()
    .max(200, "must be at most 200 characters")
    .refine(withoutNul, NUL_RULE)
    .optional(),
  sort: z
    .enum(AGENT_SORTS, { error: `must be one of ${AGENT_SORTS.join(", ")}` })
    .optional()
    .meta({
      description:
        "The order, over all agents: `aid` (default), `name`, `quota` (quota use: the highest share of any limit taken, the five counters and the three token budgets, a limit of 0 or one reached counting as full), or `activity` (the last message or autonomous run; agents never used come last). Ties go by aid.",
    }),
  order: z
    .enum(["asc", "desc"], { error: "must be asc or desc" })
    .optional()
    .meta({ description: "Default: asc for aid and name, desc for quota and activity." }),
  quota: z.enum(["near", "over"], { error: "must be near or over" }).optional().meta({
    description:
      "Only agents at 80% or more of some limit (`near`, which includes `over`), or at a limit (`over`: the next use of that kind is refused).",
  }),
  autonomous: z
    .enum(["on", "off"], { error: "must be on or off" })
    .optional()
    .meta({ description: "Only agents with autonomous mode on, or off." }),
  include_total: includeTotalParam("agents"),
});

export type ListAgentsQuery = z.output<typeof listAgentsInputSchema>;

export const listAgentsOutputSchema = z
  .object({
    agents: z.array(agentSchema),
    ...pageOutputFields("agents"),
  })
  .meta({ id: "AgentList" });

/** The counters, by the names a quota reset takes (a token counter's reset clears its cost too). */
export const QUOTA_COUNTERS = [
  "message_total",
  "message_monthly",
  "message_daily",
  "autonomous_total",
  "autonomous_monthly",
  "token_total",
  "token_monthly",
  "token_daily",
] as const;

export type QuotaCounterName = (typeof QUOTA_COUNTERS)[number];

/** Which counters a quota reset sets back to 0: those named, or all of them. */
export const resetQuotaInputSchema = z.strictObject({
  aid: lookupAidSchema,
  counters: z
    .array(z.enum(QUOTA_COUNTERS, { error: `must be one of ${QUOTA_COUNTERS.join(", ")}` }))
    .min(1, "must name at least one counter; leave it out to reset them all")
    .optional()
    .meta({ description: "The counters to set back to 0; all of them when left out." }),
});
