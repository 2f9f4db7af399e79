import { and, inArray, lt, not, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { autonomousRuns, pausedTurns, runInFlight } from "@/db/schema";
import { agentLockShared } from "@/server/kit/agent-lock";
import type { Clock } from "@/server/kit/clock";
import { releaseRun } from "@/server/quota";
import { runEventsSql } from "./record-json";

/** A run whose turn waits for approvals is in no process: its turn's expiry ends it. */
const waitingForApproval = sql`EXISTS (SELECT 1 FROM ${pausedTurns}
  WHERE ${pausedTurns.runId} = ${autonomousRuns.id})`;

/**
 * Fails runs left `running` by an instance that stopped, giving their quota back and writing their
 * `run.failed` events, in one transaction. Returns how many.
 */
export async function sweepInterruptedRuns(
  { db, clock }: { db: Db; clock: Clock },
  staleAfterMs: number,
): Promise<number> {
  return db.transaction(async (tx) => {
    const now = clock.now();
    const staleSince = new Date(now.getTime() - staleAfterMs);
    // Their agents' locks before their rows, in one order (server/kit/agent-lock.ts).
    await tx.execute(sql`SELECT count(${agentLockShared(sql`a.aid`)}) FROM (SELECT DISTINCT aid
        FROM ${autonomousRuns} WHERE ${runInFlight} AND ${lt(autonomousRuns.startedAt, staleSince)}
          AND NOT ${waitingForApproval}
        ORDER BY aid) AS a`);
    const stale = await tx
      .select({
        id: autonomousRuns.id,
        aid: autonomousRuns.aid,
        quotaMonth: autonomousRuns.quotaMonth,
      })
      .from(autonomousRuns)
      .where(and(runInFlight, lt(autonomousRuns.startedAt, staleSince), not(waitingForApproval)))
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
    await tx.execute(
      runEventsSql(
        "run.failed",
        stale.map((run) => run.id),
        now,
      ),
    );
    return stale.length;
  });
}
