import { and, asc, eq, inArray, lt, lte } from "drizzle-orm";
import type { Db } from "@/db/client";
import { type AgentRow, type AutonomousRunRow, agents, autonomousRuns } from "@/db/schema";
import { agentNotFound } from "@/server/agents/agents";
import {
  type ChatRuntime,
  capReply,
  classifyFailure,
  type Deadline,
  loadHistory,
  modelRequest,
  noModelSlot,
  startDeadline,
  storeExchange,
} from "@/server/chat/chat";
import type { Clock } from "@/server/clock";
import { AppError } from "@/server/errors";
import { autonomousReservation, consumeQuota, refundQuota } from "@/server/quota/quota";
import { nextSlotAfter } from "./schedule";

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

/** The thread autonomous runs talk in, so each run sees the earlier ones as history. */
export const AUTONOMOUS_THREAD = "autonomous";

type RunContext = { db: Db; clock: Clock; chat: ChatRuntime };

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

    const runs: ClaimedRun[] = [];
    let skipped = 0;
    for (const agent of due) {
      const dueAt = agent.autonomousNextRunAt as Date;
      await tx
        .update(agents)
        .set({ autonomousNextRunAt: nextSlotAfter(dueAt, agent.autonomousMinutes, now) })
        .where(eq(agents.aid, agent.aid));
      const { claimed } = await startRun(tx, clock, agent, "schedule", dueAt);
      if (claimed) runs.push(claimed);
      else skipped++;
    }
    return { runs, skipped };
  });
}

/** Reserves the quota and records the run; `claimed` is undefined when it was skipped. */
async function startRun(
  db: Db,
  clock: Clock,
  agent: AgentRow,
  trigger: AutonomousRunRow["trigger"],
  dueAt: Date,
): Promise<{ runId: number; claimed: ClaimedRun | undefined }> {
  const now = clock.now();
  const consumed = await consumeQuota({ db, clock }, agent.aid, "autonomous");
  const reserved = consumed.ok ? consumed.reservation : undefined;
  const skippedBecause = consumed.ok
    ? undefined
    : (consumed.exceeded?.detail ?? `Agent '${agent.aid}' has no quota record.`);
  const [run] = await db
    .insert(autonomousRuns)
    .values({
      aid: agent.aid,
      trigger,
      dueAt,
      startedAt: now,
      outcome: reserved ? "running" : "skipped",
      error: skippedBecause,
      finishedAt: reserved ? null : now,
      quotaMonth: reserved?.month ?? null,
    })
    .returning({ id: autonomousRuns.id });
  if (!run) throw new Error(`Recording a run of '${agent.aid}' returned no row`);
  return {
    runId: run.id,
    claimed: reserved && { runId: run.id, agent, quotaMonth: reserved.month },
  };
}

/**
 * Runs a claimed slot: the agent's autonomous prompt through its model, in its autonomous
 * thread. Success stores the exchange and the reply; failure gives the quota back. Either way
 * the run is finished in the same transaction as what it changes.
 */
export async function executeRun(
  ctx: RunContext,
  run: ClaimedRun,
): Promise<AutonomousRunRow["outcome"]> {
  const { agent } = run;
  const { llm, chat } = ctx.chat;
  let deadline: Deadline | undefined;
  // Waiting for a slot counts against the run's time, so a stale run can be told from a live one.
  const release = await ctx.chat.slots.acquire(llm.timeoutMs);
  try {
    if (!release) throw noModelSlot(ctx.chat.slots);
    const askedAt = ctx.clock.now();
    const prompt = agent.autonomousPrompt ?? "";
    const history = await loadHistory(ctx.db, { aid: agent.aid, chat_id: AUTONOMOUS_THREAD }, chat);
    deadline = startDeadline(llm.timeoutMs, undefined);
    const request = modelRequest(agent, history, prompt, llm, deadline.signal);
    const reply = capReply(await ctx.chat.provider.generate(request), chat.maxReplyChars);
    const answeredAt = ctx.clock.now();
    await ctx.db.transaction(async (tx) => {
      await storeExchange(tx, {
        aid: agent.aid,
        chatId: AUTONOMOUS_THREAD,
        question: prompt,
        reply,
        askedAt,
        answeredAt,
      });
      await tx
        .update(autonomousRuns)
        .set({ outcome: "succeeded", reply, finishedAt: answeredAt })
        .where(eq(autonomousRuns.id, run.runId));
    });
    return "succeeded";
  } catch (error) {
    const failure = deadline ? classifyFailure(error, deadline, llm.timeoutMs) : error;
    if (!(failure instanceof AppError))
      console.error(`Autonomous run ${run.runId} of '${agent.aid}' failed:`, error);
    await failRun(
      ctx,
      run,
      failure instanceof AppError
        ? failure.detail
        : "An unexpected error occurred. It has been logged.",
    );
    return "failed";
  } finally {
    release?.();
  }
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
    if (updated)
      await refundQuota({ db: tx }, autonomousReservation(run.agent.aid, run.quotaMonth));
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
      if (run.quotaMonth)
        await refundQuota({ db: tx }, autonomousReservation(run.aid, run.quotaMonth));
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
      `Agent '${aid}' has no autonomous_prompt to run; set one with POST /agents first.`,
    );
  }
  const { runId, claimed } = await ctx.db.transaction((tx) =>
    startRun(tx, ctx.clock, agent, "manual", ctx.clock.now()),
  );
  if (claimed) await executeRun(ctx, claimed);
  const [run] = await ctx.db.select().from(autonomousRuns).where(eq(autonomousRuns.id, runId));
  return run as AutonomousRunRow;
}
