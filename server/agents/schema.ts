import { z } from "zod";
import { pageParams } from "@/server/pagination/schema";
import { NUL_RULE, withoutNul } from "@/server/text";

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
  "v1",
  "v2",
  "v3",
  "well-known",
]);

const AID_RULE = `an agent ID is ${AID_MIN_LENGTH} to ${AID_MAX_LENGTH} characters: a lowercase letter, then lowercase letters, digits or hyphens`;

/**
 * An aid to look up: any string may be asked for, since one that is malformed or reserved is
 * simply not found (404), not a 400.
 */
export const lookupAidSchema = z
  .string()
  .min(1)
  .max(AID_MAX_LENGTH * 4)
  .refine(withoutNul, NUL_RULE);

export const aidSchema = z
  .string({ error: `must be a string; ${AID_RULE}` })
  .min(AID_MIN_LENGTH, AID_RULE)
  .max(AID_MAX_LENGTH, AID_RULE)
  .regex(AID_PATTERN, AID_RULE)
  .refine((aid) => !RESERVED_AIDS.has(aid), {
    error: (issue) => `'${String(issue.input)}' is reserved for the service's own paths`,
  })
  .meta({ description: AID_RULE, examples: ["support-bot"] });

/** Postgres `integer`: the largest limit a counter can hold. */
const MAX_LIMIT = 2_147_483_647;

const quotaLimit = z
  .int({ error: "must be a whole number from 0 up, or null for unlimited" })
  .min(0, "must be 0 or more, or null for unlimited")
  .max(MAX_LIMIT, `must be at most ${MAX_LIMIT}, or null for unlimited`)
  .nullable();

export const QUOTA_LIMIT_FIELDS = [
  "message_limit_total",
  "message_limit_monthly",
  "message_limit_daily",
  "autonomous_limit_total",
  "autonomous_limit_monthly",
] as const;

export type QuotaLimitField = (typeof QUOTA_LIMIT_FIELDS)[number];

export const quotaLimitsInputSchema = z
  .strictObject({
    message_limit_total: quotaLimit.optional(),
    message_limit_monthly: quotaLimit.optional(),
    message_limit_daily: quotaLimit.optional(),
    autonomous_limit_total: quotaLimit.optional(),
    autonomous_limit_monthly: quotaLimit.optional(),
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

const isoDateTime = z.iso.datetime({ offset: true });

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
    last_message_at: isoDateTime.nullable(),
    last_autonomous_at: isoDateTime.nullable(),
    daily_resets_at: isoDateTime,
    monthly_resets_at: isoDateTime,
  })
  .meta({
    id: "Quota",
    description:
      "Effective counts (a period that has rolled over counts 0) and limits (null = unlimited). Daily counters reset at 00:00 UTC, monthly ones on the 1st at 00:00 UTC.",
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
  q: z.string().trim().max(200, "must be at most 200 characters").optional(),
});

export type ListAgentsQuery = z.output<typeof listAgentsInputSchema>;

export const listAgentsOutputSchema = z
  .object({ agents: z.array(agentSchema), next_cursor: z.string().nullable() })
  .meta({ id: "AgentList" });
