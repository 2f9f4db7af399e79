import { z } from "zod";
import { CHAT_ACCESS } from "@/db/enums";
import { AID_RULE, aidSchema, lookupAidSchema } from "@/server/kit/agent-id";
import { isoDateTime } from "@/server/kit/iso-date-time";
import { NUL_RULE, withoutNul } from "@/server/kit/text";
import { modelEndpointSchema, modelEndpointsInputSchema } from "@/server/model-endpoints/schema";
import { includeTotalParam, pageOutputFields, pageParams } from "@/server/pagination/schema";
import { QUOTA_COUNTERS, quotaLimitsInputSchema, quotaSchema } from "@/server/quota/schema";
import { autonomousCronSchema, autonomousTimezoneSchema } from "@/server/schedules/schema";
import { maxToolStepsSchema, mcpServerSchema, mcpServersInputSchema } from "@/server/tools/schema";
import { AGENT_SORTS } from "./view";

// Shared by the procedures, REST, OpenAPI and the dashboard: nothing here may import server-only
// code.

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
  autonomous_cron: autonomousCronSchema,
  autonomous_timezone: autonomousTimezoneSchema,
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
  model_endpoints: modelEndpointsInputSchema,
  max_tool_steps: maxToolStepsSchema,
  paused: z.boolean({ error: "must be true or false" }).meta({
    description:
      "Paused by an admin: chats are refused (403 agent_paused) and no autonomous run starts until it is false again; nothing is deleted or reset. A resumed schedule goes on from the next slot after now, without catching up.",
  }),
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
    autonomous_cron: agentFields.autonomous_cron.optional(),
    autonomous_timezone: agentFields.autonomous_timezone.optional(),
    chat_access: agentFields.chat_access.optional(),
    rate_limit_rpm: agentFields.rate_limit_rpm.optional(),
    mcp_servers: agentFields.mcp_servers.optional(),
    model_endpoints: agentFields.model_endpoints.optional(),
    max_tool_steps: agentFields.max_tool_steps.optional(),
    paused: agentFields.paused.optional(),
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
    autonomous_cron: z.string().nullable().meta({
      description:
        "The cron expression that decides the runs (in autonomous_timezone); null = every autonomous_minutes.",
    }),
    autonomous_timezone: z.string(),
    chat_access: z.enum(CHAT_ACCESS),
    rate_limit_rpm: z.int().nullable(),
    mcp_servers: z.array(mcpServerSchema).meta({
      description:
        'MCP servers whose tools the agent may call. Header secrets are never shown: a stored one is `{"secret": true, "hint"}`.',
    }),
    model_endpoints: z.array(modelEndpointSchema).meta({
      description:
        'The OpenAI-compatible endpoints tried in order; empty: the service\'s configured provider. API keys are never shown: a stored one is `{"secret": true, "hint"}`.',
    }),
    max_tool_steps: z.int(),
    paused: z.boolean(),
    autonomous_next_run_at: isoDateTime.nullable().meta({
      description:
        "When the next autonomous run is due (the next occurrence of autonomous_cron, or the next slot every autonomous_minutes); null while autonomous mode is off.",
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

/** Which counters a quota reset sets back to 0: those named, or all of them. */
export const resetQuotaInputSchema = z.strictObject({
  aid: lookupAidSchema,
  counters: z
    .array(z.enum(QUOTA_COUNTERS, { error: `must be one of ${QUOTA_COUNTERS.join(", ")}` }))
    .min(1, "must name at least one counter; leave it out to reset them all")
    .optional()
    .meta({ description: "The counters to set back to 0; all of them when left out." }),
});
