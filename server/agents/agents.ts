import { and, asc, eq, gt, ilike, or, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db/client";
import { prepared } from "@/db/prepared";
import { type AgentQuotaRow, type AgentRow, agentQuotas, agents } from "@/db/schema";
import type { Clock } from "@/server/clock";
import type { QuotaLimits } from "@/server/config";
import { AppError } from "@/server/errors";
import { decodeCursor, keysetPage } from "@/server/pagination/cursor";
import { LIMIT_COLUMNS, newQuotaRow, presentQuota } from "@/server/quota/quota";
import { nextRunAfterChange } from "@/server/scheduler/schedule";
import {
  type Agent,
  type AgentInput,
  autonomousPromptProblem,
  type ListAgentsQuery,
  QUOTA_LIMIT_FIELDS,
} from "./schema";

type AgentsContext = { db: Db; clock: Clock };

/** Configuration an agent starts with; `name` defaults to its aid. */
const DEFAULTS = {
  model: null,
  prompt: null,
  temperature: null,
  autonomousEnabled: false,
  autonomousMinutes: 60,
  autonomousPrompt: null,
} as const;

type AgentConfig = Omit<AgentRow, "aid" | "createdAt" | "updatedAt" | "autonomousNextRunAt">;

export function agentNotFound(aid: string): AppError {
  return new AppError("agent_not_found", `Agent '${aid}' not found.`);
}

/** Throws 404 unless the agent exists. */
export async function assertAgentExists(db: Db, aid: string): Promise<void> {
  const [found] = await db.select({ aid: agents.aid }).from(agents).where(eq(agents.aid, aid));
  if (!found) throw agentNotFound(aid);
}

/** Applies the fields `input` gives (undefined = keep) over `current`. */
function mergeConfig(current: AgentConfig, input: AgentInput): AgentConfig {
  const pick = <T>(given: T | undefined, kept: T) => (given === undefined ? kept : given);
  return {
    name: pick(input.name, current.name),
    model: pick(input.model, current.model),
    prompt: pick(input.prompt, current.prompt),
    temperature: pick(input.temperature, current.temperature),
    autonomousEnabled: pick(input.autonomous_enabled, current.autonomousEnabled),
    autonomousMinutes: pick(input.autonomous_minutes, current.autonomousMinutes),
    autonomousPrompt: pick(input.autonomous_prompt, current.autonomousPrompt),
  };
}

function assertConsistent(config: AgentConfig): void {
  const detail = autonomousPromptProblem({
    autonomous_enabled: config.autonomousEnabled,
    autonomous_prompt: config.autonomousPrompt,
  });
  if (detail) {
    throw new AppError(
      "validation_failed",
      `The request has invalid fields: autonomous_prompt ${detail}.`,
      {
        errors: [{ field: "autonomous_prompt", detail }],
      },
    );
  }
}

/** The quota limits `input` sets, as row columns; omitted limits are left out. */
function givenLimits(input: AgentInput): Partial<QuotaLimits> {
  const limits: Partial<QuotaLimits> = {};
  for (const field of QUOTA_LIMIT_FIELDS) {
    const value = input.quota?.[field];
    if (value !== undefined) limits[LIMIT_COLUMNS[field]] = value;
  }
  return limits;
}

/**
 * Creates the agent, or updates the fields `input` gives. One transaction: a failure leaves
 * nothing half-written. Concurrent creates of one aid end as one create and updates.
 */
export async function upsertAgent(
  { db, clock, quotaDefaults }: AgentsContext & { quotaDefaults: QuotaLimits },
  input: AgentInput,
): Promise<{ created: boolean; agent: Agent }> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const outcome = await db.transaction(async (tx) => {
      const now = clock.now();
      const [existing] = await tx
        .select()
        .from(agents)
        .where(eq(agents.aid, input.aid))
        .for("update");

      if (existing) {
        const config = mergeConfig(existing, input);
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
        return { created: false, agent: await getAgent({ db: tx, clock }, input.aid) };
      }

      const config = mergeConfig({ ...DEFAULTS, name: input.aid }, input);
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
      return { created: true, agent: await getAgent({ db: tx, clock }, input.aid) };
    });
    if (outcome) return outcome;
  }
  throw new Error(`Agent '${input.aid}' kept being created concurrently; gave up after 3 attempts`);
}

export async function getAgent({ db, clock }: AgentsContext, aid: string): Promise<Agent> {
  const [found] = await db
    .select({ agent: agents, quota: agentQuotas })
    .from(agents)
    .innerJoin(agentQuotas, eq(agentQuotas.aid, agents.aid))
    .where(eq(agents.aid, aid));
  if (!found) throw agentNotFound(aid);
  return presentAgent(found.agent, found.quota, clock.now());
}

/** Position of a page of agents: the last aid it showed. */
const agentCursor = z.object({ a: z.string() });

/**
 * One page of agents in aid order. Keyset pagination: the cursor is the last aid of the
 * previous page, so a page costs an index range scan whatever the number of agents.
 */
export async function listAgents(
  { db, clock }: AgentsContext,
  input: ListAgentsQuery,
): Promise<{ agents: Agent[]; next_cursor: string | null }> {
  const after = input.cursor === undefined ? undefined : decodeCursor(input.cursor, agentCursor).a;
  const pattern = input.q ? `%${escapeLike(input.q)}%` : undefined;

  const rows = await agentsPageQuery(db, after !== undefined, pattern !== undefined).execute({
    after,
    pattern,
    limit: input.limit + 1,
  });

  const { page, nextCursor } = keysetPage(rows, input.limit, (last) => ({ a: last.agent.aid }));
  const now = clock.now();
  return {
    agents: page.map((row) => presentAgent(row.agent, row.quota, now)),
    next_cursor: nextCursor,
  };
}

/**
 * The page query, prepared once per database handle for each of its four shapes (with or without
 * a cursor, with or without a search): it runs on every listing, and drizzle would otherwise
 * build its SQL anew each time.
 */
function agentsPageQuery(db: Db, hasCursor: boolean, hasPattern: boolean) {
  const shape = `${hasCursor ? "after" : "first"}_${hasPattern ? "search" : "all"}`;
  return prepared(db, `agents-page-${shape}`, () => {
    const after = sql.placeholder("after");
    const pattern = sql.placeholder("pattern");
    return db
      .select({ agent: agents, quota: agentQuotas })
      .from(agents)
      .innerJoin(agentQuotas, eq(agentQuotas.aid, agents.aid))
      .where(
        and(
          hasCursor ? gt(agents.aid, after) : undefined,
          // The same bound on the quota side: PostgreSQL does not carry it across the merge
          // join, and without it the quota index is read from the start (a page cost grew with
          // its depth).
          hasCursor ? gt(agentQuotas.aid, after) : undefined,
          hasPattern ? or(ilike(agents.aid, pattern), ilike(agents.name, pattern)) : undefined,
        ),
      )
      .orderBy(asc(agents.aid))
      .limit(sql.placeholder("limit"))
      .prepare(`agents_page_${shape}`);
  });
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
    autonomous_next_run_at: agent.autonomousNextRunAt?.toISOString() ?? null,
    created_at: agent.createdAt.toISOString(),
    updated_at: agent.updatedAt.toISOString(),
    quota: presentQuota(quota, now),
  };
}

/** Escapes LIKE wildcards so a search for `50%` finds the text `50%`. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
