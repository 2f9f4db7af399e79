import { eq } from "drizzle-orm";
import { autonomousRuns } from "@/db/schema";
import {
  type ClaimedTurn,
  endTurn,
  pauseAgain,
  resumedCall,
  resumedExchange,
  turnProblem,
} from "@/server/approvals";
import type { DataContext } from "@/server/frame/data-context";
import { AppError } from "@/server/frame/errors";
import type { ModelRuntime } from "@/server/model-call";
import { CANCELLED_DETAIL, watchForCancel } from "./cancel";
import { storeRunReply } from "./execute";
import { failRun } from "./fail";

type RunContext = DataContext & { model: ModelRuntime };

export type RunTurnOutcome = {
  status: "completed" | "requires_approval" | "failed";
  error: { code: string; detail: string } | null;
};

/**
 * A run's turn paused for approvals goes on in the process that took the last decision, as a
 * chat's does (server/chat/paused.ts): the reply stored and the run succeeded, or the run failed.
 */
export async function resumeRun(ctx: RunContext, turn: ClaimedTurn): Promise<RunTurnOutcome> {
  const runId = turn.runId as number;
  const [run] = await ctx.db
    .select({ quotaMonth: autonomousRuns.quotaMonth })
    .from(autonomousRuns)
    .where(eq(autonomousRuns.id, runId));
  let cancel: ReturnType<typeof watchForCancel> | undefined;
  try {
    if (!run) throw new AppError("agent_not_found", `Agent '${turn.aid}' was deleted.`);
    // A cancel from any instance stops it, as it stops a run in flight.
    cancel = watchForCancel(ctx.db, runId);
    const call = await resumedCall(ctx, turn, cancel.signal);
    try {
      const reply = await call.generate().catch((error: unknown) => {
        throw call.failure(error);
      });
      if (reply.paused) {
        await pauseAgain(ctx, turn, reply.paused);
        return { status: "requires_approval", error: null };
      }
      const stored = await storeRunReply(ctx, runId, resumedExchange(turn, reply, ctx.clock.now()));
      if (!stored) throw new AppError("conflict", "The run had already ended.");
      await endTurn(ctx.db, turn.id);
      return { status: "completed", error: null };
    } finally {
      call.end();
    }
  } catch (error) {
    const problem = turnProblem(error, { run_id: runId, aid: turn.aid });
    const detail = cancel?.signal.aborted ? CANCELLED_DETAIL : problem.detail;
    await failRun(ctx, { runId, aid: turn.aid, quotaMonth: run?.quotaMonth ?? null }, detail);
    await endTurn(ctx.db, turn.id);
    return { status: "failed", error: { code: problem.code, detail } };
  } finally {
    cancel?.done();
  }
}
