import { and, eq, inArray, isNotNull, isNull } from "drizzle-orm";
import type { Db } from "@/db/client";
import { type AutonomousRunRow, autonomousRuns, runInFlight } from "@/db/schema";
import { endWaitingRunTurn } from "@/server/approvals";
import { type AuditSource, recordChange } from "@/server/audit";
import type { DataContext } from "@/server/frame/data-context";
import { AppError } from "@/server/frame/errors";
import { readUntil } from "@/server/kit/read-until";
import { log } from "@/server/observability";
import { failRun } from "./fail";

/**
 * Cancelling a run from any instance: the cancel sets a flag on the run's row; the process
 * running it reads the flags of its runs every CANCEL_POLL_MS (one statement for all of them) and
 * aborts the model call, and the run ends failed, its use given back (execute.ts).
 */

const CANCEL_POLL_MS = 250;
/** How long a cancel waits to answer with the run ended; then it answers as it stands. */
const CANCEL_WAIT_MS = 3_000;
export const CANCELLED_DETAIL = "The run was cancelled on request before it ended.";

const running = new Map<number, AbortController>();
let poller: NodeJS.Timeout | undefined;

/** This process runs `runId`: the signal aborts when a cancel is asked for, on any instance. */
export function watchForCancel(db: Db, runId: number): { signal: AbortSignal; done(): void } {
  const controller = new AbortController();
  running.set(runId, controller);
  poller ??= setInterval(() => {
    poll(db).catch((error: unknown) =>
      log.warn({ err: error }, "Reading the runs' cancels failed; trying again"),
    );
  }, CANCEL_POLL_MS).unref();
  return {
    signal: controller.signal,
    done() {
      running.delete(runId);
      if (running.size === 0 && poller) {
        clearInterval(poller);
        poller = undefined;
      }
    },
  };
}

async function poll(db: Db): Promise<void> {
  const ids = [...running.keys()];
  if (ids.length === 0) return;
  const asked = await db
    .select({ id: autonomousRuns.id })
    .from(autonomousRuns)
    .where(and(inArray(autonomousRuns.id, ids), isNotNull(autonomousRuns.cancelRequestedAt)));
  for (const { id } of asked) running.get(id)?.abort();
}

/**
 * POST /agents/{aid}/runs/{id}/cancel: asks whichever process runs it to stop, and answers with
 * the run once it has ended (failed, as cancelled, or as it ended first).
 */
export async function cancelRun(
  ctx: DataContext & AuditSource,
  { aid, id }: { aid: string; id: number },
): Promise<AutonomousRunRow> {
  const read = async () =>
    (
      await ctx.db
        .select()
        .from(autonomousRuns)
        .where(and(eq(autonomousRuns.id, id), eq(autonomousRuns.aid, aid)))
    )[0];
  const found = await read();
  if (!found) throw runNotFound(aid, id);
  if (found.outcome !== "running") return found;
  // Only the cancel that takes effect is recorded, in the transaction that makes it take
  // effect: a later one changes nothing.
  const recorded = (db: Db) =>
    recordChange(db, ctx, {
      at: ctx.clock.now(),
      action: "run.cancelled",
      target: `run:${aid}/${id}`,
      before: { outcome: "running" },
    });
  // Waiting for approvals, it runs in no process: it is ended here.
  const endedWaiting = await ctx.db.transaction(async (tx) => {
    const ended = await endWaitingRunTurn(tx, id);
    if (ended) await recorded(tx);
    return ended;
  });
  if (endedWaiting) {
    await failRun(ctx, { runId: id, aid, quotaMonth: found.quotaMonth }, CANCELLED_DETAIL);
    return (await read()) as AutonomousRunRow;
  }
  await ctx.db.transaction(async (tx) => {
    const asked = await tx
      .update(autonomousRuns)
      .set({ cancelRequestedAt: ctx.clock.now() })
      .where(and(eq(autonomousRuns.id, id), runInFlight, isNull(autonomousRuns.cancelRequestedAt)))
      .returning({ id: autonomousRuns.id });
    if (asked.length > 0) await recorded(tx);
  });
  running.get(id)?.abort();
  return readUntil(
    async () => (await read()) as AutonomousRunRow,
    (now) => now.outcome !== "running",
    CANCEL_WAIT_MS,
  );
}

function runNotFound(aid: string, id: number): AppError {
  return new AppError("not_found", `Agent '${aid}' has no run ${id}.`);
}
