import type { SchedulerConfig } from "@/server/frame/config";
import type { DataContext } from "@/server/frame/data-context";
import { ClaimLoop } from "@/server/kit/claim-loop";
import type { ModelRuntime } from "@/server/model-call";
import { log, metrics } from "@/server/observability";
import { type ClaimedRun, claimDueRuns } from "./claim";
import { executeRun } from "./execute";
import { sweepInterruptedRuns } from "./sweep";

type SchedulerContext = DataContext & { model: ModelRuntime };

/**
 * The loop that runs autonomous agents: each tick sweeps runs left by a dead instance, then claims
 * and starts due slots. The schedule lives in the database, so any number of these share the work.
 */
export class Scheduler {
  private readonly loop: ClaimLoop<ClaimedRun>;

  constructor(
    private readonly ctx: SchedulerContext,
    options: Pick<SchedulerConfig, "tickMs" | "batchSize" | "concurrency">,
  ) {
    // A run older than this cannot be alive: slot wait and model call are both bounded.
    const staleAfterMs = 2 * ctx.model.llm.timeoutMs + 60_000;
    this.loop = new ClaimLoop({
      everyMs: options.tickMs,
      concurrency: options.concurrency,
      minClaim: Math.min(options.batchSize, Math.ceil(options.concurrency / 4)),
      failedPass: "Scheduler tick failed; trying again next tick",
      beforePass: () => sweepInterruptedRuns(ctx, staleAfterMs).then(() => undefined),
      claim: async (room) => {
        const limit = Math.min(options.batchSize, room);
        const { runs, skipped } = await claimDueRuns(ctx, limit, ctx.model.chat);
        observeClaim(runs, skipped, ctx.clock.now());
        // Short of the limit: nothing more is due (skipped runs count: their slots were due).
        return { claimed: runs, more: runs.length + skipped >= limit };
      },
      work: (run) => this.execute(run),
    });
  }

  start(): void {
    this.loop.start();
  }

  /** One pass of the claim loop; returns how many runs it started (`idle()` waits for them). */
  tick(): Promise<number> {
    return this.loop.pass();
  }

  idle(): Promise<void> {
    return this.loop.idle();
  }

  stop(graceMs: number): Promise<boolean> {
    return this.loop.stop(graceMs);
  }

  private async execute(run: ClaimedRun): Promise<void> {
    try {
      metrics.runs.inc({ outcome: await executeRun(this.ctx, run) });
    } catch (error) {
      // Left `running`: the sweeper marks it failed and gives its quota back later.
      log.error(
        { err: error, run_id: run.runId },
        `Autonomous run ${run.runId} could not be recorded as finished`,
      );
    }
  }
}

/** A claim's due agents, the skipped runs, and how late the started ones start. */
function observeClaim(runs: ClaimedRun[], skipped: number, now: Date): void {
  metrics.dueAgents.set(runs.length + skipped);
  if (skipped > 0) metrics.runs.inc({ outcome: "skipped" }, skipped);
  for (const run of runs) {
    const due = run.agent.autonomousNextRunAt;
    if (due) metrics.schedulerLag.observe(Math.max(0, now.getTime() - due.getTime()) / 1000);
  }
}
