import { eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import {
  type AgentQuotaRow,
  type AgentRow,
  agentQuotaFields,
  agentQuotas,
  agentQuotaView,
  agents,
  chatMessages,
  chatReservations,
} from "@/db/schema";
import { type AuditSource, recordChange } from "@/server/audit";
import type { AuthKeys } from "@/server/auth";
import type { Config, QuotaLimits } from "@/server/frame/config";
import type { DataContext } from "@/server/frame/data-context";
import { AppError, invalidFields } from "@/server/frame/errors";
import { agentLockAlone } from "@/server/kit/agent-lock";
import { presentEndpoints, storeEndpoints } from "@/server/model-endpoints";
import { emitEvent } from "@/server/outbox";
import { LIMIT_COLUMNS, newQuotaRow, presentQuota, QUOTA_LIMIT_FIELDS } from "@/server/quota";
import { nextRunAfterChange } from "@/server/schedules";
import { DEFAULT_MAX_TOOL_STEPS, presentServers, storeServers } from "@/server/tools";
import { type Agent, type AgentInput, autonomousPromptProblem } from "./schema";

type AgentsContext = DataContext;

/** Configuration an agent starts with; `name` defaults to its aid. */
const DEFAULTS = {
  chatAccess: "public",
  model: null,
  prompt: null,
  temperature: null,
  autonomousEnabled: false,
  autonomousMinutes: 60,
  autonomousPrompt: null,
  autonomousCron: null,
  autonomousTimezone: "UTC",
  paused: false,
  mcpServers: [],
  modelEndpoints: [],
  maxToolSteps: DEFAULT_MAX_TOOL_STEPS,
} as const;

type AgentConfig = Omit<AgentRow, "aid" | "createdAt" | "updatedAt" | "autonomousNextRunAt">;

export function agentNotFound(aid: string): AppError {
  return new AppError("agent_not_found", `Agent '${aid}' not found.`);
}

/** The refusal of a paused agent's chats and runs (403: it exists, and refuses for now). */
export function agentPaused(aid: string): AppError {
  return new AppError(
    "agent_paused",
    `Agent '${aid}' is paused by its admin: it takes no chats and runs nothing until it is resumed.`,
  );
}

/** The agent's MCP servers as stored (header secrets encrypted); 404 for an unknown agent. */
export async function agentMcpServers(
  db: Db,
  aid: string,
): Promise<{ aid: string; mcpServers: AgentRow["mcpServers"] }> {
  const [found] = await db
    .select({ aid: agents.aid, mcpServers: agents.mcpServers })
    .from(agents)
    .where(eq(agents.aid, aid));
  if (!found) throw agentNotFound(aid);
  return found;
}

export async function assertAgentExists(db: Db, aid: string): Promise<void> {
  const [found] = await db.select({ aid: agents.aid }).from(agents).where(eq(agents.aid, aid));
  if (!found) throw agentNotFound(aid);
}

/** The lists whose secrets are sealed as they are stored, from what is given and what is kept. */
type StoreSecrets = {
  servers: (
    given: NonNullable<AgentInput["mcp_servers"]>,
    current: AgentConfig["mcpServers"],
  ) => AgentConfig["mcpServers"];
  endpoints: (
    given: NonNullable<AgentInput["model_endpoints"]>,
    current: AgentConfig["modelEndpoints"],
  ) => AgentConfig["modelEndpoints"];
};

/** Applies the fields `input` gives (undefined = keep) over `current`. */
function mergeConfig(current: AgentConfig, input: AgentInput, store: StoreSecrets): AgentConfig {
  const pick = <T>(given: T | undefined, kept: T) => (given === undefined ? kept : given);
  return {
    name: pick(input.name, current.name),
    model: pick(input.model, current.model),
    prompt: pick(input.prompt, current.prompt),
    temperature: pick(input.temperature, current.temperature),
    autonomousEnabled: pick(input.autonomous_enabled, current.autonomousEnabled),
    autonomousMinutes: pick(input.autonomous_minutes, current.autonomousMinutes),
    autonomousPrompt: pick(input.autonomous_prompt, current.autonomousPrompt),
    autonomousCron: pick(input.autonomous_cron, current.autonomousCron),
    autonomousTimezone: pick(input.autonomous_timezone, current.autonomousTimezone),
    chatAccess: pick(input.chat_access, current.chatAccess),
    rateLimitRpm: pick(input.rate_limit_rpm, current.rateLimitRpm),
    mcpServers:
      input.mcp_servers === undefined
        ? current.mcpServers
        : store.servers(input.mcp_servers ?? [], current.mcpServers),
    modelEndpoints:
      input.model_endpoints === undefined
        ? current.modelEndpoints
        : store.endpoints(input.model_endpoints ?? [], current.modelEndpoints),
    maxToolSteps: pick(input.max_tool_steps, current.maxToolSteps),
    paused: pick(input.paused, current.paused),
  };
}

function assertConsistent(config: AgentConfig): void {
  const detail = autonomousPromptProblem({
    autonomous_enabled: config.autonomousEnabled,
    autonomous_prompt: config.autonomousPrompt,
  });
  if (detail) {
    throw invalidFields([{ field: "autonomous_prompt", detail }]);
  }
}

function givenLimits(input: AgentInput): Partial<QuotaLimits> {
  const limits: Partial<QuotaLimits> = {};
  for (const field of QUOTA_LIMIT_FIELDS) {
    const value = input.quota?.[field];
    if (value !== undefined) limits[LIMIT_COLUMNS[field]] = value;
  }
  return limits;
}

export function agentExists(aid: string): AppError {
  return new AppError("agent_exists", `An agent with the ID '${aid}' exists already.`, {
    errors: [{ field: "aid", detail: "is the ID of an existing agent" }],
    aid,
  });
}

/**
 * Creates the agent or updates the fields `input` gives, in one transaction with its webhook
 * event. `createOnly` refuses an aid in use (409); of concurrent creates of one aid, one wins.
 */
export async function upsertAgent(
  {
    db,
    clock,
    config: { quotaDefaults, chat, tools, llm },
    auth,
    ...source
  }: AgentsContext &
    AuditSource & {
      config: Pick<Config, "quotaDefaults" | "chat" | "tools" | "llm">;
      auth: Pick<AuthKeys, "headerKey" | "endpointKey">;
    },
  input: AgentInput,
  { createOnly = false }: { createOnly?: boolean } = {},
): Promise<{ created: boolean; agent: Agent }> {
  const store: StoreSecrets = {
    servers: (given, current) =>
      storeServers(given, current, { key: auth.headerKey, allowedHosts: tools.allowedHosts }),
    endpoints: (given, current) =>
      storeEndpoints(given, current, { key: auth.endpointKey, allowedHosts: llm.allowedHosts }),
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    const outcome = await db.transaction(async (tx) => {
      const now = clock.now();
      const [existing] = await tx
        .select()
        .from(agents)
        .where(eq(agents.aid, input.aid))
        .for("update");

      if (existing) {
        if (createOnly) throw agentExists(input.aid);
        const before = await getAgent({ db: tx, clock }, input.aid);
        const config = mergeConfig(existing, input, store);
        assertConsistent(config);
        const autonomousNextRunAt = nextRunAfterChange(existing, config, now);
        await tx
          .update(agents)
          .set({ ...config, autonomousNextRunAt, updatedAt: now })
          .where(eq(agents.aid, input.aid));
        const limits = givenLimits(input);
        if (Object.keys(limits).length > 0) {
          await tx.update(agentQuotas).set(limits).where(eq(agentQuotas.aid, input.aid));
        }
        const agent = await getAgent({ db: tx, clock }, input.aid);
        await emitEvent(tx, { type: "agent.updated", at: now, data: agent });
        await recordChange(tx, source, {
          at: now,
          action: "agent.updated",
          target: `agent:${input.aid}`,
          before,
          after: agent,
        });
        return { created: false, agent };
      }

      const config = mergeConfig(
        {
          ...DEFAULTS,
          mcpServers: [],
          modelEndpoints: [],
          name: input.aid,
          rateLimitRpm: chat.defaultRateLimitRpm,
        },
        input,
        store,
      );
      assertConsistent(config);
      const inserted = await tx
        .insert(agents)
        .values({
          aid: input.aid,
          ...config,
          autonomousNextRunAt: nextRunAfterChange(undefined, config, now),
          createdAt: now,
          updatedAt: now,
        })
        .onConflictDoNothing()
        .returning({ aid: agents.aid });
      // Another request created it since our read: go round again and update it instead.
      if (inserted.length === 0) return undefined;
      await tx
        .insert(agentQuotas)
        .values(newQuotaRow(input.aid, { ...quotaDefaults, ...givenLimits(input) }, now));
      const agent = await getAgent({ db: tx, clock }, input.aid);
      await emitEvent(tx, { type: "agent.created", at: now, data: agent });
      await recordChange(tx, source, {
        at: now,
        action: "agent.created",
        target: `agent:${input.aid}`,
        after: agent,
      });
      return { created: true, agent };
    });
    if (outcome) return outcome;
  }
  throw new Error(`Agent '${input.aid}' kept being created concurrently; gave up after 3 attempts`);
}

/**
 * Deletes the agent and everything its own (the foreign keys cascade, and its messages and chat
 * reservations are deleted beside it); chats in flight then fail, counting nothing. Its
 * `agent.deleted` event carries the record as read.
 */
export async function deleteAgent(
  { db, clock, ...source }: AgentsContext & AuditSource,
  aid: string,
): Promise<void> {
  await db.transaction(async (tx) => {
    // Before any of its rows: uses in flight end first, and new ones wait (server/kit/agent-lock.ts).
    await tx.execute(sql`SELECT ${agentLockAlone(aid)}`);
    const [locked] = await tx
      .select({ aid: agents.aid })
      .from(agents)
      .where(eq(agents.aid, aid))
      .for("no key update");
    if (!locked) throw agentNotFound(aid);
    const now = clock.now();
    const record = await getAgent({ db: tx, clock }, aid);
    await tx.delete(agents).where(eq(agents.aid, aid));
    // After the agent's row, whose delete waits for a reply being stored (its thread's row):
    // messages and reservations have no foreign key to cascade from. A chat in flight then finds
    // its reservation gone, and stores nothing.
    await tx.delete(chatMessages).where(eq(chatMessages.aid, aid));
    await tx.delete(chatReservations).where(eq(chatReservations.aid, aid));
    await emitEvent(tx, { type: "agent.deleted", at: now, data: record });
    await recordChange(tx, source, {
      at: now,
      action: "agent.deleted",
      target: `agent:${aid}`,
      before: record,
    });
  });
}

export async function getAgent({ db, clock }: AgentsContext, aid: string): Promise<Agent> {
  const [found] = await db
    .select({ agent: agents, quota: agentQuotaFields })
    .from(agents)
    .innerJoin(agentQuotaView, eq(agentQuotaView.aid, agents.aid))
    .where(eq(agents.aid, aid));
  if (!found) throw agentNotFound(aid);
  return presentAgent(found.agent, found.quota, clock.now());
}

export function presentAgent(agent: AgentRow, quota: AgentQuotaRow, now: Date): Agent {
  return {
    aid: agent.aid,
    name: agent.name,
    model: agent.model,
    prompt: agent.prompt,
    temperature: agent.temperature,
    autonomous_enabled: agent.autonomousEnabled,
    autonomous_minutes: agent.autonomousMinutes,
    autonomous_prompt: agent.autonomousPrompt,
    autonomous_cron: agent.autonomousCron,
    autonomous_timezone: agent.autonomousTimezone,
    chat_access: agent.chatAccess,
    rate_limit_rpm: agent.rateLimitRpm,
    mcp_servers: presentServers(agent.mcpServers),
    model_endpoints: presentEndpoints(agent.modelEndpoints),
    max_tool_steps: agent.maxToolSteps,
    paused: agent.paused,
    autonomous_next_run_at: agent.autonomousNextRunAt?.toISOString() ?? null,
    created_at: agent.createdAt.toISOString(),
    updated_at: agent.updatedAt.toISOString(),
    quota: presentQuota(quota, now),
  };
}
