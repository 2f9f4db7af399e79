import { eq, sql } from "drizzle-orm";
import { isDatabaseUnavailable } from "@/db/failures";
import { type AutonomousRunRow, agents, autonomousRuns, runInFlight } from "@/db/schema";
import { agentNotFound, agentPaused } from "@/server/agents";
import { pauseTurn } from "@/server/approvals";
import { type AuditSource, recordChange } from "@/server/audit";
import type { DataContext } from "@/server/frame/data-context";
import { AppError } from "@/server/frame/errors";
import { agentsLockedShared } from "@/server/kit/agent-lock";
import { writeReliably } from "@/server/kit/write-reliably";
import {
  type ModelCall,
  type ModelRuntime,
  noModelSlot,
  startModelCall,
} from "@/server/model-call";
import { log } from "@/server/observability";
import { fanOutSql } from "@/server/outbox";
import { priceOf } from "@/server/quota";
import {
  AGENT_CALLER,
  AUTONOMOUS_THREAD,
  type Exchange,
  loadHistory,
  storeExchange,
} from "@/server/threads";
import { CANCELLED_DETAIL, watchForCancel } from "./cancel";
import { type ClaimedRun, startRuns } from "./claim";
import { failRun } from "./fail";
import { runJson } from "./record-json";

type RunContext = DataContext & { model: ModelRuntime };

/**
 * Runs a claimed slot: the agent's autonomous prompt through its model, in its autonomous thread.
 * It never leaves the run `running` unless the process dies (then the sweeper finishes it).
 */
export async function executeRun(
  ctx: RunContext,
  run: ClaimedRun,
): Promise<AutonomousRunRow["outcome"]> {
  const { agent } = run;
  let call: ModelCall | undefined;
  let failure: unknown;
  const cancel = watchForCancel(ctx.db, run.runId);
  // Waiting for a slot counts against the run's time, so a stale run can be told from a live one.
  const releaseSlot = await ctx.model.slots.acquire(ctx.model.llm.timeoutMs);
  try {
    if (!releaseSlot) throw noModelSlot(ctx.model.slots);
    const askedAt = ctx.clock.now();
    const question = agent.autonomousPrompt ?? "";
    const thread = { aid: agent.aid, caller: AGENT_CALLER, chatId: AUTONOMOUS_THREAD };
    const history = run.history ?? (await loadHistory(ctx.db, thread, ctx.model.chat));
    const started = startModelCall(ctx.model, {
      agent,
      history,
      question,
      releaseSlot,
      signal: cancel.signal,
      store: ctx,
    });
    call = started;
    // The model call's own failures in its terms (timeout, provider); a failed write after it
    // stays what it is, even once the deadline has passed.
    const reply = await started.generate().catch((error: unknown) => {
      throw started.failure(error);
    });
    // Tools that wait for a person: the run stays `running` and waits, in no process, for them
    // to decide (server/approvals), for up to TOOL_APPROVAL_WAIT_S.
    if (reply.paused) {
      await pauseTurn(
        ctx,
        ctx.model.tools.config.approvalWaitMs,
        { ...thread, via: "run", scope: null, runId: run.runId },
        { paused: reply.paused, question, askedAt: askedAt.toISOString() },
      );
      return "running";
    }
    const stored = await storeRunReply(ctx, run.runId, {
      ...thread,
      question,
      reply: reply.text,
      model: reply.model,
      usage: reply.usage,
      toolCalls: reply.toolCalls,
      askedAt,
      answeredAt: ctx.clock.now(),
    });
    return stored ? "succeeded" : "failed";
  } catch (error) {
    failure = error;
  } finally {
    cancel.done();
    if (call) call.end();
    else releaseSlot?.();
  }
  if (cancel.signal.aborted) failure = new AppError("client_closed_request", CANCELLED_DETAIL);
  // Recorded with the model slot already free; if the database is down (often why the run
  // failed), the record and the refund are retried in the background, not left to the sweeper.
  await writeReliably(`recording autonomous run ${run.runId} as failed`, () =>
    failRun(
      ctx,
      { runId: run.runId, aid: run.agent.aid, quotaMonth: run.quotaMonth },
      runFailureDetail(run, failure),
    ),
  );
  return "failed";
}

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

/** "Run now": a manual run outside the schedule (which it leaves as it is), executed at once. */
export async function runNow(
  ctx: RunContext & AuditSource,
  aid: string,
): Promise<AutonomousRunRow> {
  const [agent] = await ctx.db.select().from(agents).where(eq(agents.aid, aid));
  if (!agent) throw agentNotFound(aid);
  if (agent.paused) throw agentPaused(aid);
  if (!agent.autonomousPrompt) {
    throw new AppError(
      "conflict",
      `Agent '${aid}' has no instruction for autonomous runs (autonomous_prompt) to run; set one first.`,
    );
  }
  const [started] = await ctx.db.transaction(async (tx) => {
    const runs = await startRuns(tx, ctx.clock, [{ agent, dueAt: ctx.clock.now() }], "manual");
    const run = runs[0];
    if (run)
      await recordChange(tx, ctx, {
        at: ctx.clock.now(),
        action: "run.started",
        target: `run:${aid}/${run.runId}`,
        after: { trigger: "manual", outcome: run.claimed ? "running" : "skipped" },
      });
    return runs;
  });
  if (!started) throw new Error(`Starting a run of '${aid}' recorded nothing`);
  const { runId, claimed } = started;
  if (claimed) await executeRun(ctx, claimed);
  const [run] = await ctx.db.select().from(autonomousRuns).where(eq(autonomousRuns.id, runId));
  return run as AutonomousRunRow;
}

/**
 * Stores a run's reply and marks it succeeded in one statement: both, or neither; and only while
 * the run is still `running`, so a run the sweeper has already failed and refunded (its instance
 * looked dead) cannot turn succeeded and keep a use it gave back.
 */
export async function storeRunReply(
  ctx: Pick<RunContext, "db">,
  runId: number,
  exchange: Exchange,
): Promise<boolean> {
  const { stored } = await storeExchange(
    ctx.db,
    exchange,
    {
      key: "run",
      // The reply's fields are the exchange's own (see StoreGuard): one run a statement.
      build: () =>
        sql`UPDATE autonomous_runs SET outcome = 'succeeded', reply = e.reply,
            tool_calls = e.tool_calls::jsonb, finished_at = e.answered_at,
            input_tokens = e.input_tokens, output_tokens = e.output_tokens,
            tokens_estimated = e.estimated,
            cost = ${priceOf(sql`e.model`, sql`e.input_tokens`, sql`e.output_tokens`)}
          FROM exchanges AS e
          WHERE autonomous_runs.id = e.guard_id AND ${runInFlight}
            AND ${agentsLockedShared(sql`SELECT aid FROM exchanges`)}
          RETURNING autonomous_runs.*, autonomous_runs.id AS guard_id`,
      // Its run.succeeded event, in the same statement: from the run as the guard wrote it.
      effects: () =>
        fanOutSql({
          type: "run.succeeded",
          at: sql`guard.finished_at`,
          data: runJson("guard"),
          from: sql`guard`,
        }),
      id: runId,
    },
    "run",
  );
  return stored;
}
