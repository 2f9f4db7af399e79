import { randomUUID } from "node:crypto";
import { and, asc, eq, gt, isNull, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { pausedTurns, toolApprovals } from "@/db/schema";
import { type AuditSource, recordChange } from "@/server/audit";
import { type Caller, callerId, callerScope } from "@/server/callers";
import { AppError } from "@/server/frame/errors";
import type { Clock } from "@/server/kit/clock";
import { storableJsonText, storableText } from "@/server/kit/text";
import type { CallSettings, Decision, PausedTurns } from "@/server/model-call";
import { emitEvent } from "@/server/outbox";
import type { Approval, DecideApprovalInput, PendingApproval } from "./schema";

/**
 * Paused turns and their approvals in PostgreSQL, so that any process can decide and resume them.
 * A decision and the claim to resume are one transaction on the turn's row: of two deciders, one
 * resumes; a turn is resumed once, by the process that took the last decision.
 */

/** Whose turn it is and what it holds: a chat's message reservation, or a run. */
export type TurnOwner = {
  aid: string;
  via: string;
  caller: string;
  /** The scope of the agent key that asked, which may decide; null: only the admin. */
  scope: string | null;
  chatId: string;
  reservationId?: number;
  runId?: number;
};

/** What a paused turn keeps: the turns so far, and what its reply will be stored with. */
export type TurnState = {
  paused: PausedTurns;
  question: string;
  askedAt: string;
  settings?: CallSettings;
};

export type ClaimedTurn = TurnOwner & {
  id: number;
  state: TurnState;
  decisions: Record<string, Decision>;
};

/** Turns one caller of an agent may have waiting at once: each holds a message of its quota. */
const MAX_PAUSED_PER_CALLER = 100;
/** The list's page: the oldest first. */
const LIST_LIMIT = 100;

/** The scope whose turns a caller may decide: an agent key's; null for anyone else. */
export function decidingScope(caller: Caller): string | null {
  return caller.kind === "key" ? callerScope(caller) : null;
}

/**
 * Records a turn paused for approvals (or a resumed one paused again: `turnId`), its approvals
 * and their webhook events, in one transaction. Returns the approvals.
 */
export async function pauseTurn(
  { db, clock }: { db: Db; clock: Clock },
  waitMs: number,
  owner: TurnOwner,
  state: TurnState,
  turnId?: number,
): Promise<PendingApproval[]> {
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + waitMs);
  const pending = state.paused.calls.flatMap((entry) =>
    "waiting" in entry ? [{ id: randomUUID(), callId: entry.call.id, ...entry.waiting }] : [],
  );
  const stateJson = sql`${storableJsonText(JSON.stringify(state))}::jsonb`;
  await db.transaction(async (tx) => {
    let id = turnId;
    if (id === undefined) {
      // One caller's waiting turns are counted under a lock of their own, so the bound holds.
      await tx.execute(
        sql`SELECT pg_advisory_xact_lock(hashtextextended(${`paused:${owner.aid}:${owner.caller}`}, 0))`,
      );
      const [{ waiting } = { waiting: 0 }] = rowsOf<{ waiting: number }>(
        await tx.execute(sql`SELECT count(*)::int AS waiting FROM ${pausedTurns}
          WHERE ${pausedTurns.aid} = ${owner.aid} AND ${pausedTurns.caller} = ${owner.caller}`),
      );
      if (waiting >= MAX_PAUSED_PER_CALLER)
        throw new AppError(
          "rate_limited",
          `${MAX_PAUSED_PER_CALLER} of your turns with agent '${owner.aid}' already wait for approvals; wait for them to be decided or to expire.`,
          { retryAfterS: 60 },
        );
      const [row] = await tx
        .insert(pausedTurns)
        .values({
          ...owner,
          reservationId: owner.reservationId ?? null,
          runId: owner.runId ?? null,
          state: stateJson,
          pausedAt: now,
          expiresAt,
        })
        .returning({ id: pausedTurns.id });
      id = row?.id;
    } else {
      await tx
        .update(pausedTurns)
        .set({ state: stateJson, pausedAt: now, expiresAt, resumingUntil: null })
        .where(eq(pausedTurns.id, id));
    }
    if (id === undefined) throw new Error("A paused turn was not recorded.");
    const turn = id;
    await tx.insert(toolApprovals).values(
      pending.map((approval) => ({
        id: approval.id,
        turnId: turn,
        aid: owner.aid,
        callId: storableText(approval.callId),
        server: storableText(approval.server),
        tool: storableText(approval.tool),
        arguments: sql`${storableJsonText(JSON.stringify(approval.arguments ?? null))}::jsonb`,
        requestedAt: now,
      })),
    );
    for (const approval of pending)
      await emitEvent(tx, {
        type: "tool_call.approval_requested",
        at: now,
        data: {
          aid: owner.aid,
          approval: present(approval, owner, now, expiresAt),
        },
      });
  });
  return pending.map(({ id, server, tool, arguments: args }) => ({
    id,
    server,
    tool,
    arguments: args,
  }));
}

function present(
  approval: { id: string; server: string; tool: string; arguments: unknown },
  owner: Pick<TurnOwner, "caller" | "chatId" | "via">,
  since: Date,
  expiresAt: Date,
): Approval {
  return {
    id: approval.id,
    server: approval.server,
    tool: approval.tool,
    arguments: approval.arguments,
    thread: { caller: owner.caller, chat_id: owner.chatId },
    via: owner.via,
    since: since.toISOString(),
    expires_at: expiresAt.toISOString(),
  };
}

/** The agent's approvals waiting for a decision: all for the admin, a key's own for it. */
export async function listApprovals(
  { db, clock, caller }: { db: Db; clock: Clock; caller: Caller },
  aid: string,
): Promise<Approval[]> {
  const scope = caller.kind === "admin" ? undefined : decidingScope(caller);
  if (scope === null) return [];
  const rows = await db
    .select({ approval: toolApprovals, turn: pausedTurns })
    .from(toolApprovals)
    .innerJoin(pausedTurns, eq(pausedTurns.id, toolApprovals.turnId))
    .where(
      and(
        eq(toolApprovals.aid, aid),
        isNull(toolApprovals.decision),
        gt(pausedTurns.expiresAt, clock.now()),
        scope === undefined ? undefined : eq(pausedTurns.scope, scope),
      ),
    )
    .orderBy(asc(toolApprovals.requestedAt), asc(toolApprovals.id))
    .limit(LIST_LIMIT);
  return rows.map(({ approval, turn }) =>
    present(approval, turn, approval.requestedAt, turn.expiresAt),
  );
}

/**
 * Records a decision, if the approval waits and the caller may take it (the admin, or the agent
 * key that asked). When it was the turn's last, the turn is claimed for this process to resume
 * until `resumingUntil`.
 */
export async function decideApproval(
  { db, clock, caller, ...source }: { db: Db; clock: Clock; caller: Caller } & AuditSource,
  input: DecideApprovalInput,
  resumingMs: number,
): Promise<ClaimedTurn | undefined> {
  const now = clock.now();
  const scope = caller.kind === "admin" ? "admin" : decidingScope(caller);
  return db.transaction(async (tx) => {
    const [found] = await tx
      .select({ approval: toolApprovals, turn: pausedTurns })
      .from(toolApprovals)
      .innerJoin(pausedTurns, eq(pausedTurns.id, toolApprovals.turnId))
      .where(and(eq(toolApprovals.id, input.id), eq(toolApprovals.aid, input.aid)))
      .for("update", { of: pausedTurns });
    if (
      !found ||
      found.turn.expiresAt <= now ||
      scope === null ||
      (scope !== "admin" && scope !== found.turn.scope)
    )
      throw new AppError(
        "not_found",
        `Agent '${input.aid}' has no tool call waiting for your approval with id '${input.id}' (it is unknown, expired, or another caller's).`,
      );
    // The turn's lock serialises its deciders; this statement reads the approval as it is now
    // (the join above may have read it before the lock was granted).
    const [decided] = await tx
      .update(toolApprovals)
      .set({
        decision: input.decision,
        reason: input.reason ?? null,
        decidedAt: now,
        decidedBy: callerId(caller),
      })
      .where(and(eq(toolApprovals.id, input.id), isNull(toolApprovals.decision)))
      .returning({ id: toolApprovals.id });
    if (!decided) throw new AppError("conflict", "This tool call was already decided.");
    // A person's decision to let a tool run is the team's to know; an agent key's is its
    // client's own, and a client that is no admin adds no audit rows.
    if (caller.kind === "admin") {
      const { server, tool, arguments: args } = found.approval;
      await recordChange(tx, source, {
        at: now,
        action: input.decision === "approve" ? "tool_call.approved" : "tool_call.denied",
        target: `tool_call:${input.aid}/${input.id}`,
        before: null,
        after: { server, tool, arguments: args, reason: input.reason ?? null },
      });
    }
    const approvals = await tx
      .select()
      .from(toolApprovals)
      .where(eq(toolApprovals.turnId, found.turn.id));
    if (approvals.some((approval) => approval.decision === null)) return undefined;
    await tx
      .update(pausedTurns)
      .set({ resumingUntil: new Date(now.getTime() + resumingMs) })
      .where(eq(pausedTurns.id, found.turn.id));
    const { id, state, aid, via, caller: owner, chatId, reservationId, runId } = found.turn;
    return {
      id,
      aid,
      via,
      caller: owner,
      scope: found.turn.scope,
      chatId,
      ...(reservationId === null ? {} : { reservationId }),
      ...(runId === null ? {} : { runId }),
      state: state as TurnState,
      decisions: Object.fromEntries(
        approvals.map((approval) => [
          approval.callId,
          { approve: approval.decision === "approve", reason: approval.reason },
        ]),
      ),
    };
  });
}

/**
 * Ends the turn a run waits in, unless a decision is taking it on: true if it was waiting (the
 * run is then the caller's to end, as cancelled).
 */
export async function endWaitingRunTurn(db: Db, runId: number): Promise<boolean> {
  const ended = await db
    .delete(pausedTurns)
    .where(and(eq(pausedTurns.runId, runId), isNull(pausedTurns.resumingUntil)))
    .returning({ id: pausedTurns.id });
  return ended.length > 0;
}

/** Deletes a turn that was resumed to its end (its approvals with it). */
export async function endTurn(db: Db, id: number): Promise<void> {
  await db.delete(pausedTurns).where(eq(pausedTurns.id, id));
}

/**
 * Deletes the turns whose wait ran out, or whose resumer died, in one statement that takes each
 * once; the caller then gives back each chat's message or fails each run.
 */
export async function expireTurns(
  db: Db,
  now: Date,
): Promise<
  {
    id: number;
    aid: string;
    reservationId: number | null;
    runId: number | null;
    state: TurnState;
    /** Whether it was decided and being resumed (the process doing it died). */
    resuming: boolean;
  }[]
> {
  const expired = await db.execute(sql`DELETE FROM ${pausedTurns} WHERE id IN (
      SELECT id FROM ${pausedTurns}
      WHERE (resuming_until IS NULL AND expires_at <= ${now.toISOString()}::timestamptz)
        OR resuming_until <= ${now.toISOString()}::timestamptz
      ORDER BY id LIMIT 500 FOR UPDATE SKIP LOCKED)
    RETURNING id, aid, reservation_id AS "reservationId", run_id AS "runId", state,
      resuming_until IS NOT NULL AS resuming`);
  return rowsOf<{
    id: number | string;
    aid: string;
    reservationId: number | string | null;
    runId: number | string | null;
    state: TurnState;
    resuming: boolean;
  }>(expired).map((row) => ({
    resuming: row.resuming,
    id: Number(row.id),
    aid: row.aid,
    reservationId: row.reservationId === null ? null : Number(row.reservationId),
    runId: row.runId === null ? null : Number(row.runId),
    // A driver may give jsonb back as its text.
    state: (typeof row.state === "string" ? JSON.parse(row.state) : row.state) as TurnState,
  }));
}
