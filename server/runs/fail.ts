import { and, eq, sql } from "drizzle-orm";
import { autonomousRuns, runInFlight } from "@/db/schema";
import type { DataContext } from "@/server/frame/data-context";
import { agentLockShared } from "@/server/kit/agent-lock";
import { releaseRun } from "@/server/quota";
import { runEventsSql } from "./record-json";

// Fails the run, gives its quota back and writes `run.failed` in one transaction, so that the
// sweeper cannot refund it twice.
export async function failRun(
  ctx: Pick<DataContext, "db" | "clock">,
  run: { runId: number; aid: string; quotaMonth: string | null },
  error: string,
): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    await tx.execute(sql`SELECT ${agentLockShared(run.aid)}`);
    const now = ctx.clock.now();
    const [updated] = await tx
      .update(autonomousRuns)
      .set({ outcome: "failed", error, finishedAt: now, quotaMonth: null })
      .where(and(eq(autonomousRuns.id, run.runId), runInFlight))
      .returning({ id: autonomousRuns.id });
    if (!updated) return;
    if (run.quotaMonth) await releaseRun(tx, { aid: run.aid, month: run.quotaMonth });
    await tx.execute(runEventsSql("run.failed", [run.runId], now));
  });
}

/** Fails a run whose tool calls waited too long for an approval (server/frame/housekeeping.ts). */
export async function failPausedRun(
  ctx: Pick<DataContext, "db" | "clock">,
  run: { runId: number; aid: string },
  error: string,
): Promise<void> {
  const [row] = await ctx.db
    .select({ quotaMonth: autonomousRuns.quotaMonth })
    .from(autonomousRuns)
    .where(eq(autonomousRuns.id, run.runId));
  if (row) await failRun(ctx, { ...run, quotaMonth: row.quotaMonth }, error);
}
