import { and, count, desc, eq, lt } from "drizzle-orm";
import type { z } from "zod";
import type { Db } from "@/db/client";
import { type AutonomousRunRow, agents, autonomousRuns, RUN_OUTCOMES } from "@/db/schema";
import { agentNotFound, assertAgentExists } from "@/server/agents";
import { storedUsage } from "@/server/model-call";
import { beforeIdCursor, decodeCursor, keysetPage } from "@/server/pagination";
import type { listRunsInputSchema, listRunsOutputSchema, Run, runSummarySchema } from "./schema";

export function presentRun(run: AutonomousRunRow): Run {
  return {
    id: run.id,
    aid: run.aid,
    trigger: run.trigger,
    due_at: run.dueAt.toISOString(),
    started_at: run.startedAt.toISOString(),
    finished_at: run.finishedAt?.toISOString() ?? null,
    outcome: run.outcome,
    reply: run.reply,
    error: run.error,
    usage: storedUsage(run),
    tool_calls: run.toolCalls ?? [],
  };
}

export async function listRuns(
  { db }: { db: Db },
  input: z.output<typeof listRunsInputSchema>,
): Promise<z.output<typeof listRunsOutputSchema>> {
  await assertAgentExists(db, input.aid);
  const before = input.cursor ? decodeCursor(input.cursor, beforeIdCursor).before : undefined;
  const rows = await db
    .select()
    .from(autonomousRuns)
    .where(
      and(
        eq(autonomousRuns.aid, input.aid),
        before === undefined ? undefined : lt(autonomousRuns.id, before),
      ),
    )
    .orderBy(desc(autonomousRuns.id))
    .limit(input.limit + 1);
  const { page, nextCursor } = keysetPage(rows, input.limit, (last) => ({ before: last.id }));
  return { runs: page.map(presentRun), next_cursor: nextCursor };
}

/** An agent's schedule at a glance: next due time, last run, outcome counts. */
export async function summarizeRuns(
  { db }: { db: Db },
  aid: string,
): Promise<z.output<typeof runSummarySchema>> {
  const [agent] = await db.select().from(agents).where(eq(agents.aid, aid));
  if (!agent) throw agentNotFound(aid);
  const [last] = await db
    .select()
    .from(autonomousRuns)
    .where(eq(autonomousRuns.aid, aid))
    .orderBy(desc(autonomousRuns.id))
    .limit(1);
  const grouped = await db
    .select({ outcome: autonomousRuns.outcome, n: count() })
    .from(autonomousRuns)
    .where(eq(autonomousRuns.aid, aid))
    .groupBy(autonomousRuns.outcome);
  const counts = Object.fromEntries(RUN_OUTCOMES.map((outcome) => [outcome, 0])) as Record<
    (typeof RUN_OUTCOMES)[number],
    number
  >;
  for (const { outcome, n } of grouped) counts[outcome] = n;
  return {
    aid,
    autonomous_enabled: agent.autonomousEnabled,
    autonomous_minutes: agent.autonomousMinutes,
    autonomous_cron: agent.autonomousCron,
    autonomous_timezone: agent.autonomousTimezone,
    next_run_at: agent.autonomousNextRunAt?.toISOString() ?? null,
    last_run: last ? presentRun(last) : null,
    counts,
  };
}
