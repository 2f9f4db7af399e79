import { and, asc, eq, inArray, lt, lte, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { type AgentRow, type AutonomousRunRow, agents, autonomousRuns } from "@/db/schema";
import { agentNotFound } from "@/server/agents";
import type { Clock } from "@/server/clock";
import { AppError, isDatabaseUnavailable } from "@/server/errors";
import {
  type ModelCall,
  type ModelRuntime,
  noModelSlot,
  startModelCall,
} from "@/server/model-call";
import { log } from "@/server/observability";
import { releaseRun, reserveRuns } from "@/server/quota";
import { nextSlotAfter } from "@/server/schedules";
import { AGENT_CALLER, AUTONOMOUS_THREAD, loadHistory, storeExchange } from "@/server/threads";
import { writeReliably } from "@/server/write-reliably";

/**
 * Autonomous runs: claiming due slots, running them, and cleaning up after a crash.
 *
 * A claim is one transaction: it locks due agents with FOR UPDATE SKIP LOCKED (so schedulers on
 * any number of instances never take the same one), moves each to its next slot, reserves the
 * autonomous quota, and records the run as `running`, or as `skipped` when the quota is spent.
 * The model is called after the commit, outside any transaction. If the process dies then,
 * the run stays `running` with the quota it holds; `sweepInterruptedRuns` later marks it
 * failed and gives the quota back. A crash loses the run in flight, and nothing else.
 */

type RunContext = { db: Db; clock: Clock; model: ModelRuntime };

/** A claimed run that holds its quota and awaits the model. */
export type ClaimedRun = { runId: number; agent: AgentRow; quotaMonth: string };

/** Claims up to `limit` due slots; returns the runs to execute (skipped ones are recorded). */
export async function claimDueRuns(
  { db, clock }: Pick<RunContext, "db" | "clock">,
  limit: number,
): Promise<{ runs: ClaimedRun[]; skipped: number }> {
  return db.transaction(async (tx) => {
    const now = clock.now();
    const due = await tx
      .select()
      .from(agents)
      .where(and(eq(agents.autonomousEnabled, true), lte(agents.autonomousNextRunAt, now)))
      .orderBy(asc(agents.autonomousNextRunAt))
      .limit(limit)
      .for("update", { skipLocked: true });
    if (due.length === 0) return { runs: [], skipped: 0 };

    await moveToNextSlots(tx, due, now);
    const started = await startRuns(
      tx,
      clock,
      due.map((agent) => ({ agent, dueAt: agent.autonomousNextRunAt as Date })),
      "schedule",
    );
    const runs = started.flatMap(({ claimed }) => (claimed ? [claimed] : []));
    return { runs, skipped: started.length - runs.length };
  });
}

/** Moves each claimed agent's schedule to its next slot after now, in one statement. */
async function moveToNextSlots(db: Db, due: AgentRow[], now: Date): Promise<void> {
  const slots = due.map((agent) => {
    const next = nextSlotAfter(agent.autonomousNextRunAt as Date, agent.autonomousMinutes, now);
    return sql`(${agent.aid}, ${next.toISOString()}::timestamptz)`;
  });
  await db.execute(sql`
    UPDATE agents SET autonomous_next_run_at = slot.next_run_at
    FROM (VALUES ${sql.join(slots, sql`, `)}) AS slot(aid, next_run_at)
    WHERE agents.aid = slot.aid`);
}

/**
 * Reserves the autonomous quota of each agent and records its run, `running`, or `skipped`
 * when its quota is spent: one statement for the quotas and one for the runs, however many.
 * `claimed` is undefined for a skipped run.
 */
async function startRuns(
  db: Db,
  clock: Clock,
  slots: { agent: AgentRow; dueAt: Date }[],
  trigger: AutonomousRunRow["trigger"],
): Promise<{ runId: number; claimed: ClaimedRun | undefined }[]> {
  const now = clock.now();
  const reserves = await reserveRuns(
    { db, clock },
    slots.map(({ agent }) => agent.aid),
  );
  const reservationOf = (aid: string) => {
    const reserve = reserves.get(aid);
    return reserve?.refused === undefined ? reserve : undefined;
  };
  const skippedBecause = (aid: string) =>
    reserves.get(aid)?.refused ?? `Agent '${aid}' has no quota record.`;
  const recorded = await db
    .insert(autonomousRuns)
    .values(
      slots.map(({ agent, dueAt }) => {
        const reserved = reservationOf(agent.aid);
        return {
          aid: agent.aid,
          trigger,
          dueAt,
          startedAt: now,
          outcome: reserved ? ("running" as const) : ("skipped" as const),
          error: reserved ? null : skippedBecause(agent.aid),
          finishedAt: reserved ? null : now,
          quotaMonth: reserved?.month ?? null,
        };
      }),
    )
    .returning({ id: autonomousRuns.id, aid: autonomousRuns.aid });
  // One run per agent in a claim, so the aid tells which row is whose.
  const runIdOf = new Map(recorded.map((row) => [row.aid, row.id]));
  return slots.map(({ agent }) => {
    const runId = runIdOf.get(agent.aid);
    if (runId === undefined) throw new Error(`Recording a run of '${agent.aid}' returned no row`);
    const reserved = reservationOf(agent.aid);
    return { runId, claimed: reserved && { runId, agent, quotaMonth: reserved.month } };
  });
}

/**
 * Runs a claimed slot: the agent's autonomous prompt through its model, in its autonomous
 * thread. Success stores the exchange and marks the run succeeded in one statement; failure
 * marks it failed and gives the quota back in one transaction. Never leaves it `running` unless
 * the process dies (then the sweeper finishes it).
 */
export async function executeRun(
  ctx: RunContext,
  run: ClaimedRun,
): Promise<AutonomousRunRow["outcome"]> {
  const { agent } = run;
  let call: ModelCall | undefined;
  let failure: unknown;
  // Waiting for a slot counts against the run's time, so a stale run can be told from a live one.
  const releaseSlot = await ctx.model.slots.acquire(ctx.model.llm.timeoutMs);
  try {
    if (!releaseSlot) throw noModelSlot(ctx.model.slots);
    const askedAt = ctx.clock.now();
    const question = agent.autonomousPrompt ?? "";
    const thread = { aid: agent.aid, caller: AGENT_CALLER, chatId: AUTONOMOUS_THREAD };
    const history = await loadHistory(ctx.db, thread, ctx.model.chat);
    const started = startModelCall(ctx.model, { agent, history, question, releaseSlot });
    call = started;
    // The model call's own failures in its terms (timeout, provider); a failed write after it
    // stays what it is, even once the deadline has passed.
    const { text, model, usage, toolCalls } = await started.generate().catch((error: unknown) => {
      throw started.failure(error);
    });
    const answeredAt = ctx.clock.now();
    // The exchange and the run's success are one statement: both are stored, or neither; and
    // only while the run is still `running`, so a run the sweeper has already failed and
    // refunded (its instance looked dead) cannot turn succeeded and keep a use it gave back.
    const { stored } = await storeExchange(
      ctx.db,
      { ...thread, question, reply: text, model, usage, toolCalls, askedAt, answeredAt },
      {
        key: "run",
        // The reply's fields are the exchange's own placeholders (see StoreGuard).
        build: () => {
          const p = (name: string) => sql.placeholder(name);
          return sql`UPDATE autonomous_runs SET outcome = 'succeeded', reply = ${p("reply")}::text,
              tool_calls = ${p("toolCalls")}::jsonb, finished_at = ${p("answeredAt")}::timestamptz,
              input_tokens = ${p("inputTokens")}::integer,
              output_tokens = ${p("outputTokens")}::integer,
              tokens_estimated = ${p("estimated")}::boolean, cost = (SELECT cost FROM price)
            WHERE id = ${p("guardRunId")}::bigint AND outcome = 'running' RETURNING id`;
        },
        values: { guardRunId: run.runId },
      },
      "run",
    );
    return stored ? "succeeded" : "failed";
  } catch (error) {
    failure = error;
  } finally {
    if (call) call.end();
    else releaseSlot?.();
  }
  // Recorded with the model slot already free; if the database is down (often why the run
  // failed), the record and the refund are retried in the background, not left to the sweeper.
  await writeReliably(`recording autonomous run ${run.runId} as failed`, () =>
    failRun(ctx, run, runFailureDetail(run, failure)),
  );
  return "failed";
}

/** What a failed run's record says; errors that are not ours to explain are logged. */
function runFailureDetail(run: ClaimedRun, failure: unknown): string {
  if (failure instanceof AppError) return failure.detail;
  if (isDatabaseUnavailable(failure))
    return "The database could not be reached during the run; it runs again at its next slot.";
  log.error(
    { err: failure, run_id: run.runId, aid: run.agent.aid },
    `Autonomous run ${run.runId} of '${run.agent.aid}' failed`,
  );
  return "An unexpected error occurred. It has been logged.";
}

/** Marks the run failed and gives its quota back, atomically (so the sweeper cannot refund twice). */
async function failRun(
  ctx: Pick<RunContext, "db" | "clock">,
  run: ClaimedRun,
  error: string,
): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(autonomousRuns)
      .set({ outcome: "failed", error, finishedAt: ctx.clock.now(), quotaMonth: null })
      .where(and(eq(autonomousRuns.id, run.runId), eq(autonomousRuns.outcome, "running")))
      .returning({ id: autonomousRuns.id });
    if (updated) await releaseRun(tx, { aid: run.agent.aid, month: run.quotaMonth });
  });
}

/**
 * Finds runs left `running` by an instance that stopped (older than any live run can be), marks
 * them failed and gives their quota back. Returns how many it found.
 */
export async function sweepInterruptedRuns(
  { db, clock }: Pick<RunContext, "db" | "clock">,
  staleAfterMs: number,
): Promise<number> {
  return db.transaction(async (tx) => {
    const now = clock.now();
    const stale = await tx
      .select({
        id: autonomousRuns.id,
        aid: autonomousRuns.aid,
        quotaMonth: autonomousRuns.quotaMonth,
      })
      .from(autonomousRuns)
      .where(
        and(
          eq(autonomousRuns.outcome, "running"),
          lt(autonomousRuns.startedAt, new Date(now.getTime() - staleAfterMs)),
        ),
      )
      .for("update", { skipLocked: true });
    if (stale.length === 0) return 0;
    await tx
      .update(autonomousRuns)
      .set({
        outcome: "failed",
        error: "Interrupted: the instance running it stopped before it finished.",
        finishedAt: now,
        quotaMonth: null,
      })
      .where(
        inArray(
          autonomousRuns.id,
          stale.map((run) => run.id),
        ),
      );
    for (const run of stale) {
      if (run.quotaMonth) await releaseRun(tx, { aid: run.aid, month: run.quotaMonth });
    }
    return stale.length;
  });
}

/** "Run now": a manual run outside the schedule (which it leaves as it is), executed at once. */
export async function runNow(ctx: RunContext, aid: string): Promise<AutonomousRunRow> {
  const [agent] = await ctx.db.select().from(agents).where(eq(agents.aid, aid));
  if (!agent) throw agentNotFound(aid);
  if (!agent.autonomousPrompt) {
    throw new AppError(
      "conflict",
      `Agent '${aid}' has no instruction for autonomous runs (autonomous_prompt) to run; set one first.`,
    );
  }
  const [started] = await ctx.db.transaction((tx) =>
    startRuns(tx, ctx.clock, [{ agent, dueAt: ctx.clock.now() }], "manual"),
  );
  if (!started) throw new Error(`Starting a run of '${aid}' recorded nothing`);
  const { runId, claimed } = started;
  if (claimed) await executeRun(ctx, claimed);
  const [run] = await ctx.db.select().from(autonomousRuns).where(eq(autonomousRuns.id, runId));
  return run as AutonomousRunRow;
}
