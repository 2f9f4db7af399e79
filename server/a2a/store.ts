import type { ListTasksResponse } from "@a2a-js/sdk";
import { Task, TaskState, taskStateToJSON } from "@a2a-js/sdk";
import { UnsupportedOperationError } from "@a2a-js/sdk/errors";
import type { TaskStore } from "@a2a-js/sdk/server";
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { isMissingReference } from "@/db/failures";
import { a2aTasks } from "@/db/schema";
import { agentNotFound } from "@/server/agents";
import { type Caller, callerId } from "@/server/callers";
import type { Clock } from "@/server/kit/clock";
import { storableJsonText } from "@/server/kit/text";
import type { KeptRow } from "@/server/threads";

/** The states after which a task never changes: a cancel that comes later is refused. */
export const FINAL_STATES = [
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
].map(taskStateToJSON);

const REJECTED = taskStateToJSON(TaskState.TASK_STATE_REJECTED);

const finalList = sql.raw(FINAL_STATES.map((state) => `'${state}'`).join(", "));

type Scope = { db: Db; caller: Caller; clock: Clock; aid: string };

const KEPT_TASK: KeptRow["build"] = (p) => sql`
  INSERT INTO a2a_tasks (id, aid, caller, state, task, updated_at)
  SELECT ${p("keptId")}::text, thread.aid, thread.caller, ${p("keptState")}::text,
    ${p("keptTask")}::jsonb, ${p("keptAt")}::timestamptz
  FROM thread`;

/**
 * The A2A SDK's task store for one request, on `a2a_tasks`: a task's changes of state are
 * written (so another instance reads and cancels it) from the moment the chat takes its turn;
 * the text streamed between them is kept here only (the SDK reads the task back for every piece). A task in a final state is never
 * written over, so a cancel and the end of the turn settle on whichever came first.
 */
export class TaskRows implements TaskStore {
  /** The state each task was last written in, and the task as last given (the SDK's copy). */
  private readonly held = new Map<string, { state: string; task: Task }>();
  /** Tasks this request begins: not in the table, so not looked for there. */
  private readonly begun = new Set<string>();
  /** Tasks written by the chat's store statement, and the state they were written in. */
  private readonly keptWith = new Map<string, string>();
  constructor(private readonly scope: Scope) {}

  async save(task: Task): Promise<void> {
    const state = taskStateToJSON(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED);
    const before = this.held.get(task.id);
    this.held.set(task.id, { state, task });
    if (before?.state === state) return;
    if (!before && this.keptWith.get(task.id) === state) return;
    // Refused before it began (a limit, a message that is not text): nothing is kept, so that a
    // caller past its limits writes no rows, as a refused chat writes none.
    if (!before && state === REJECTED) return;
    const { db, caller, clock, aid } = this.scope;
    const row = {
      id: task.id,
      aid,
      caller: callerId(caller),
      state,
      task: Task.toJSON(task) as Record<string, unknown>,
      updatedAt: clock.now(),
    };
    const mine = caller.kind === "admin" ? sql`true` : sql`${a2aTasks.caller} = ${row.caller}`;
    let written: { id: string }[];
    try {
      written = await db
        .insert(a2aTasks)
        .values(row)
        .onConflictDoUpdate({
          target: a2aTasks.id,
          set: { state: row.state, task: row.task, updatedAt: row.updatedAt },
          setWhere: sql`${a2aTasks.state} NOT IN (${finalList}) AND ${a2aTasks.aid} = ${aid} AND ${mine}`,
        })
        .returning({ id: a2aTasks.id });
    } catch (error) {
      // The agent was deleted while it answered: its tasks went with it.
      if (isMissingReference(error)) throw agentNotFound(aid);
      throw error;
    }
    if (written.length > 0) return;
    // Settled first elsewhere (a cancel lost to the end of the turn, or the reverse): the table
    // holds what is true, and what the SDK reads back next.
    const [kept] = await db
      .select({ state: a2aTasks.state, task: a2aTasks.task })
      .from(a2aTasks)
      .where(eq(a2aTasks.id, task.id));
    if (kept) this.held.set(task.id, { state: kept.state, task: Task.fromJSON(kept.task) });
  }

  async load(taskId: string): Promise<Task | undefined> {
    // The SDK clones what it is given and what it gives back: nothing to copy here.
    const held = this.held.get(taskId);
    if (held) return held.task;
    if (this.begun.has(taskId)) return undefined;
    const { db, caller, aid } = this.scope;
    const [row] = await db
      .select({ state: a2aTasks.state, task: a2aTasks.task })
      .from(a2aTasks)
      .where(
        and(
          eq(a2aTasks.id, taskId),
          eq(a2aTasks.aid, aid),
          caller.kind === "admin" ? undefined : eq(a2aTasks.caller, callerId(caller)),
        ),
      );
    if (!row) return undefined;
    const task = Task.fromJSON(row.task);
    // Known as kept: a change of it (another instance's cancel) is written, whatever its state.
    this.held.set(taskId, { state: row.state, task });
    return task;
  }

  async list(): Promise<ListTasksResponse> {
    throw new UnsupportedOperationError("Listing tasks is not offered; get each by its id.");
  }

  /**
   * The row of a new task the chat's store statement writes with its exchange (server/threads
   * `KeptRow`): its agent and caller are the exchange's. Its first save, in that state, is then
   * not written again; a reply not stored writes no row, and the task's failure is saved.
   */
  keptRow(task: Task): KeptRow {
    const state = taskStateToJSON(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED);
    this.keptWith.set(task.id, state);
    return {
      key: "a2a_task",
      build: KEPT_TASK,
      values: {
        keptId: task.id,
        keptState: state,
        keptTask: storableJsonText(JSON.stringify(Task.toJSON(task))),
        keptAt: this.scope.clock.now().toISOString(),
      },
    };
  }

  /** A task this request begins (the SDK looks for it before its first save). */
  begin(taskId: string): void {
    this.begun.add(taskId);
  }

  /** Whether the task was cancelled, by whichever instance or worker took the cancel. */
  async canceled(taskId: string): Promise<boolean> {
    const [row] = await this.scope.db
      .select({ state: a2aTasks.state })
      .from(a2aTasks)
      .where(eq(a2aTasks.id, taskId));
    return row?.state === taskStateToJSON(TaskState.TASK_STATE_CANCELED);
  }
}
