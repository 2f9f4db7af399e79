import type { z } from "zod";
import {
  agentInputSchema,
  agentSchema,
  listAgentsOutputSchema,
  resetQuotaInputSchema,
} from "@/server/agents";
import { example, problemSchema } from "@/server/http";
import { listRunsOutputSchema, runSchema } from "@/server/runs";

type Agent = z.input<typeof agentSchema>;

// Real requests and answers of the service for the agent paths (a model on loopback answered).

const CREATED: Agent = {
  aid: "support-bot",
  name: "Support",
  model: null,
  prompt: "You answer customer questions briefly.",
  temperature: 0.3,
  autonomous_enabled: false,
  autonomous_minutes: 60,
  autonomous_prompt: null,
  autonomous_cron: null,
  autonomous_timezone: "UTC",
  chat_access: "public",
  rate_limit_rpm: 60,
  mcp_servers: [],
  model_endpoints: [],
  max_tool_steps: 5,
  paused: false,
  autonomous_next_run_at: null,
  created_at: "2026-11-24T08:52:05.837Z",
  updated_at: "2026-11-24T08:52:05.837Z",
  quota: {
    message_count_total: 0,
    message_limit_total: null,
    message_count_monthly: 0,
    message_limit_monthly: 2000,
    message_count_daily: 0,
    message_limit_daily: 100,
    autonomous_count_total: 0,
    autonomous_limit_total: null,
    autonomous_count_monthly: 0,
    autonomous_limit_monthly: 3000,
    input_tokens_total: 0,
    output_tokens_total: 0,
    cost_total: 0,
    token_limit_total: null,
    input_tokens_monthly: 0,
    output_tokens_monthly: 0,
    cost_monthly: 0,
    token_limit_monthly: null,
    input_tokens_daily: 0,
    output_tokens_daily: 0,
    cost_daily: 0,
    token_limit_daily: null,
    last_message_at: null,
    last_autonomous_at: null,
    daily_resets_at: "2026-11-25T00:00:00.000Z",
    monthly_resets_at: "2026-12-01T00:00:00.000Z",
  },
};

const SUPPORT_BOT: Agent = {
  aid: "support-bot",
  name: "Support",
  model: null,
  prompt: "You answer customer questions briefly.",
  temperature: 0.3,
  autonomous_enabled: true,
  autonomous_minutes: 15,
  autonomous_prompt: "Summarise new tickets.",
  autonomous_cron: "0 9 * * 1-5",
  autonomous_timezone: "Europe/Berlin",
  chat_access: "public",
  rate_limit_rpm: 60,
  mcp_servers: [],
  model_endpoints: [],
  max_tool_steps: 5,
  paused: false,
  autonomous_next_run_at: "2026-11-24T08:52:06.024Z",
  created_at: "2026-11-24T08:52:05.837Z",
  updated_at: "2026-11-24T08:52:06.024Z",
  quota: {
    message_count_total: 4,
    message_limit_total: null,
    message_count_monthly: 4,
    message_limit_monthly: 2000,
    message_count_daily: 4,
    message_limit_daily: 100,
    autonomous_count_total: 1,
    autonomous_limit_total: null,
    autonomous_count_monthly: 1,
    autonomous_limit_monthly: 3000,
    input_tokens_total: 195,
    output_tokens_total: 80,
    cost_total: 0.00007725,
    token_limit_total: null,
    input_tokens_monthly: 195,
    output_tokens_monthly: 80,
    cost_monthly: 0.00007725,
    token_limit_monthly: null,
    input_tokens_daily: 195,
    output_tokens_daily: 80,
    cost_daily: 0.00007725,
    token_limit_daily: null,
    last_message_at: "2026-11-24T08:52:06.366Z",
    last_autonomous_at: "2026-11-24T08:52:06.438Z",
    daily_resets_at: "2026-11-25T00:00:00.000Z",
    monthly_resets_at: "2026-12-01T00:00:00.000Z",
  },
};

const RUN: z.input<typeof runSchema> = {
  id: 1,
  aid: "support-bot",
  trigger: "manual",
  due_at: "2026-11-24T08:52:06.438Z",
  started_at: "2026-11-24T08:52:06.438Z",
  finished_at: "2026-11-24T08:52:06.450Z",
  outcome: "succeeded",
  reply: "3 new tickets since 10:00: two about late deliveries, one refund request.",
  error: null,
  usage: {
    input_tokens: 31,
    output_tokens: 20,
    estimated: false,
    cost: 0.00001665,
  },
  tool_calls: [],
};

export const upsertAgent = {
  create: example(agentInputSchema, "Create an agent", {
    aid: "support-bot",
    name: "Support",
    model: null,
    prompt: "You answer customer questions briefly.",
    temperature: 0.3,
    autonomous_enabled: false,
    autonomous_minutes: 60,
    autonomous_prompt: null,
    quota: {
      message_limit_daily: 100,
      message_limit_monthly: 2000,
    },
  }),
  enableAutonomous: example(agentInputSchema, "Turn autonomous mode on, changing nothing else", {
    aid: "support-bot",
    autonomous_enabled: true,
    autonomous_minutes: 15,
    autonomous_prompt: "Summarise new tickets.",
  }),
};

export const agentCreated = { created: example(agentSchema, "The agent, created", CREATED) };

export const agentUpdated = {
  updated: example(agentSchema, "Autonomous mode on; nothing else changed", {
    ...SUPPORT_BOT,
    quota: CREATED.quota,
  }),
};

export const agent = {
  supportBot: example(agentSchema, "After four chats and one run", SUPPORT_BOT),
};

export const agentList = {
  onePage: example(listAgentsOutputSchema, "One page, the last", {
    agents: [SUPPORT_BOT],
    next_cursor: null,
  }),
};

export const resetQuota = {
  some: example(
    resetQuotaInputSchema.omit({ aid: true }),
    "Reset the daily and monthly message counts",
    {
      counters: ["message_daily", "message_monthly"],
    },
  ),
};

export const agentAfterReset = {
  reset: example(agentSchema, "The daily and monthly message counts are 0 again", {
    ...SUPPORT_BOT,
    quota: { ...SUPPORT_BOT.quota, message_count_monthly: 0, message_count_daily: 0 },
  }),
};

export const run = { succeeded: example(runSchema, "A run that succeeded", RUN) };

export const runList = {
  onePage: example(listRunsOutputSchema, "One page, the last", { runs: [RUN], next_cursor: null }),
};

export const invalidFields = {
  temperature: example(problemSchema, "temperature out of range", {
    type: "about:blank",
    title: "Bad Request",
    status: 400,
    detail: "The request has invalid fields: temperature must be a number from 0 to 2, or null.",
    code: "validation_failed",
    errors: [
      {
        field: "temperature",
        detail: "must be a number from 0 to 2, or null",
      },
    ],
    request_id: "9fefef54-6510-4362-8d1f-c6ec672bf51a",
  }),
};

export const agentNotFound = {
  unknown: example(problemSchema, "No such agent", {
    type: "about:blank",
    title: "Not Found",
    status: 404,
    detail: "Agent 'no-such-bot' not found.",
    code: "agent_not_found",
    request_id: "e4f9ba75-9759-4c7c-a22a-d42c2bf78e4e",
  }),
};

export const noAutonomousPrompt = {
  noPrompt: example(problemSchema, "Nothing to run", {
    type: "about:blank",
    title: "Conflict",
    status: 409,
    detail: "Agent 'support-bot' has no autonomous_prompt to run; set one with POST /agents first.",
    code: "conflict",
    request_id: "6786172a-6492-4cfa-a339-e4ea68221ca2",
  }),
};
