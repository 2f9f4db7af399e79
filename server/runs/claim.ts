import { and, asc, eq, inArray, lte, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import {
  type AgentRow,
  type AutonomousRunRow,
  agents,
  autonomousRuns,
  runInFlight,
} from "@/db/schema";
import type { Clock } from "@/server/kit/clock";
import type { ChatTurn } from "@/server/providers";
import { reserveRuns } from "@/server/quota";
import { nextSlot } from "@/server/schedules";
import {
  AGENT_CALLER,
  AUTONOMOUS_THREAD,
  type HistoryConfig,
  historyFromJson,
  historyJson,
} from "@/server/threads";
import { runEventsSql } from "./record-json";

/**
 * Claiming autonomous runs in one transaction: due agents locked with FOR UPDATE SKIP LOCKED (so
 * instances never take the same one), moved to their next slot, their quota reserved, each run
 * recorded `running` (holding the use) or `skipped`. The model is called after the commit
 * (execute.ts); a run whose process dies stays `running` until the sweep fails it (sweep.ts).
 */

/** A claimed run holding its quota; `history` is its thread's, when the claim read it. */
export type ClaimedRun = {
  runId: number;
  agent: AgentRow;
  quotaMonth: string;
  history?: ChatTurn[] | undefined;
};

/**
 * Claims up to `limit` due slots and returns the runs to execute. With `history`, the claim's own
 * select reads each run's thread history for the whole batch: only a run of the same agent writes
 * its thread, and the claim holds the agent's row, so it is the history the run would read.
 */
export async function claimDueRuns(
  { db, clock }: { db: Db; clock: Clock },
  limit: number,
  history?: HistoryConfig,
): Promise<{ runs: ClaimedRun[]; skipped: number }> {
  return db.transaction(async (tx) => {
    const now = clock.now();
    // The agent's aid qualified by hand: drizzle names a single table's columns bare, and a bare
    // "aid" inside the history's subquery would be the message's own.
    const aid = sql`${agents}.${sql.identifier(agents.aid.name)}`;
    const thread = { aid, caller: AGENT_CALLER, chatId: AUTONOMOUS_THREAD };
    const rows = await tx
      .select({
        agent: agents,
        // A limit of 0 (HISTORY_MESSAGES=0) reads "[]", as the chat's opening does.
        history: history ? historyJson(thread, history.historyMessages) : sql<unknown>`NULL::json`,
      })
      .from(agents)
      // A paused agent keeps its place on the schedule but is not taken until it is resumed.
      .where(
        and(
          eq(agents.autonomousEnabled, true),
          eq(agents.paused, false),
          lte(agents.autonomousNextRunAt, now),
        ),
      )
      .orderBy(asc(agents.autonomousNextRunAt))
      .limit(limit)
      .for("update", { skipLocked: true });
    if (rows.length === 0) return { runs: [], skipped: 0 };
    const due = rows.map((row) => row.agent);
    const histories = new Map(
      history
        ? rows.map((row) => [row.agent.aid, historyFromJson(row.history ?? [], history)])
        : [],
    );

    await moveToNextSlots(tx, due, now);
    const busy = await runsGoing(
      tx,
      due.filter((agent) => agent.autonomousCron !== null).map((agent) => agent.aid),
    );
    const started = await startRuns(
      tx,
      clock,
      due.map((agent) => ({
        agent,
        dueAt: agent.autonomousNextRunAt as Date,
        busyWith: busy.get(agent.aid),
      })),
      "schedule",
    );
    const runs = started.flatMap(({ claimed }) =>
      claimed ? [{ ...claimed, history: histories.get(claimed.agent.aid) }] : [],
    );
    return { runs, skipped: started.length - runs.length };
  });
}

/** Each agent's run still going, read under the claim's lock on the agents. */
async function runsGoing(db: Db, aids: string[]): Promise<Map<string, number>> {
  if (aids.length === 0) return new Map();
  const rows = await db
    .select({ aid: autonomousRuns.aid, id: autonomousRuns.id })
    .from(autonomousRuns)
    .where(and(inArray(autonomousRuns.aid, aids), runInFlight));
  return new Map(rows.map((row) => [row.aid, row.id]));
}

async function moveToNextSlots(db: Db, due: AgentRow[], now: Date): Promise<void> {
  const slots = due.map((agent) => {
    const next = nextSlot(agent, agent.autonomousNextRunAt as Date, now);
    return sql`(${agent.aid}, ${next?.toISOString() ?? null}::timestamptz)`;
  });
  await db.execute(sql`
    UPDATE agents SET autonomous_next_run_at = slot.next_run_at
    FROM (VALUES ${sql.join(slots, sql`, `)}) AS slot(aid, next_run_at)
    WHERE agents.aid = slot.aid`);
}

/** Reserves each agent's quota and records its run `running` or `skipped`; in a transaction. */
export async function startRuns(
  db: Db,
  clock: Clock,
  /** `busyWith`: the run of the agent still going, which makes this one skipped. */
  slots: { agent: AgentRow; dueAt: Date; busyWith?: number | undefined }[],
  trigger: AutonomousRunRow["trigger"],
): Promise<{ runId: number; claimed: ClaimedRun | undefined }[]> {
  const now = clock.now();
  const busy = new Map(
    slots.flatMap(({ agent, busyWith }) => (busyWith ? [[agent.aid, busyWith]] : [])),
  );
  const reserves = await reserveRuns(
    { db, clock },
    slots.filter(({ agent }) => !busy.has(agent.aid)).map(({ agent }) => agent.aid),
  );
  const reservationOf = (aid: string) => {
    const reserve = reserves.get(aid);
    return reserve?.refused === undefined ? reserve : undefined;
  };
  const skippedBecause = (aid: string) => {
    const going = busy.get(aid);
    if (going !== undefined)
      return `The run before it (run ${going}) was still going when this occurrence came.`;
    return reserves.get(aid)?.refused ?? `Agent '${aid}' has no quota record.`;
  };
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
    .returning({
      id: autonomousRuns.id,
      aid: autonomousRuns.aid,
      outcome: autonomousRuns.outcome,
    });
  const skipped = recorded.filter((row) => row.outcome === "skipped").map((row) => row.id);
  if (skipped.length > 0) await db.execute(runEventsSql("run.skipped", skipped, now));
  // One run per agent in a claim, so the aid tells which row is whose.
  const runIdOf = new Map(recorded.map((row) => [row.aid, row.id]));
  return slots.map(({ agent }) => {
    const runId = runIdOf.get(agent.aid);
    if (runId === undefined) throw new Error(`Recording a run of '${agent.aid}' returned no row`);
    const reserved = reservationOf(agent.aid);
    return { runId, claimed: reserved && { runId, agent, quotaMonth: reserved.month } };
  });
}
