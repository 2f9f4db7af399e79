import type { SchedulerConfig } from "@/server/config";
import type { Context } from "@/server/context";
import { log, metrics } from "@/server/observability";
import { settlesWithin } from "@/server/settles-within";
import { type ClaimedRun, claimDueRuns } from "./claim";
import { executeRun } from "./execute";
import { sweepInterruptedRuns } from "./sweep";

/** The slice of the request's context it needs (server/context.ts). */
type SchedulerContext = Pick<Context, "db" | "clock" | "model">;

/**
 * The loop that runs autonomous agents: every tick it sweeps runs left by a dead instance,
 * then claims due slots, as many as it has room for, and starts them. The schedule itself
 * lives in the database, so any number of these, in web instances or `npm run worker`
 * processes, share the work without running a slot twice.
 */
export class Scheduler {
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;
  private ticking: Promise<unknown> = Promise.resolve();
  private readonly inFlight = new Set<Promise<unknown>>();
  /** A run older than this cannot be alive: slot wait and model call are both bounded. */
  private readonly staleAfterMs: number;
  /** The fewest slots worth a claim while runs are in flight. */
  private readonly minClaim: number;

  constructor(
    private readonly ctx: SchedulerContext,
    private readonly options: Pick<SchedulerConfig, "tickMs" | "batchSize" | "concurrency">,
  ) {
    this.staleAfterMs = 2 * ctx.model.llm.timeoutMs + 60_000;
    this.minClaim = Math.min(options.batchSize, Math.ceil(options.concurrency / 4));
  }

  start(): void {
    const loop = async () => {
      this.ticking = this.tick().catch((error: unknown) => {
        log.error({ err: error }, "Scheduler tick failed; trying again next tick");
      });
      await this.ticking;
      if (!this.stopping) this.timer = setTimeout(loop, this.options.tickMs);
    };
    void loop();
  }

  /**
   * One pass: claims until nothing more is due, never running more than `concurrency` at once
   * (with fewer than a quarter of its slots free, it waits for runs to finish). A claim that comes back short means the rest is
   * not due, or is locked by another scheduler's claim that is taking it. Returns how many runs
   * it started; `idle()` waits for them.
   */
  async tick(): Promise<number> {
    await sweepInterruptedRuns(this.ctx, this.staleAfterMs);
    let started = 0;
    while (!this.stopping) {
      const room = this.options.concurrency - this.inFlight.size;
      // When full, wait for a quarter of the slots (or a batch) to free: a claim is a transaction
      // of five round trips, too dear to spend on one run each time one finishes.
      if (room < this.minClaim && this.inFlight.size > 0) {
        await Promise.race(this.inFlight);
        continue;
      }
      const limit = Math.min(this.options.batchSize, room);
      const { runs, skipped } = await claimDueRuns(this.ctx, limit);
      observeClaim(runs, skipped, this.ctx.clock.now());
      for (const run of runs) this.track(run);
      started += runs.length;
      if (runs.length + skipped < limit) break; // nothing more is due
    }
    return started;
  }

  /** Resolves when every run started so far has finished. */
  async idle(): Promise<void> {
    // Executions never reject (track catches), so this waits for every one of them.
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }

  /** Stops claiming and waits up to `graceMs` for the runs in flight; true if they all finished. */
  async stop(graceMs: number): Promise<boolean> {
    this.stopping = true;
    clearTimeout(this.timer);
    // The tick in progress is bounded by the grace too: a claim may be waiting on the database.
    return settlesWithin(
      this.ticking.then(() => this.idle()),
      graceMs,
    );
  }

  private track(run: ClaimedRun): void {
    const execution = executeRun(this.ctx, run)
      .then((outcome) => metrics.runs.inc({ outcome }))
      .catch((error: unknown) => {
        // Left `running`: the sweeper marks it failed and gives its quota back later.
        log.error(
          { err: error, run_id: run.runId },
          `Autonomous run ${run.runId} could not be recorded as finished`,
        );
      })
      .finally(() => this.inFlight.delete(execution));
    this.inFlight.add(execution);
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
