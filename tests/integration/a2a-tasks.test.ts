import { Task, TaskState, taskStateToJSON } from "@a2a-js/sdk";
import { describe, expect, it } from "vitest";
import { TaskRows } from "@/server/a2a";
import type { Caller } from "@/server/callers";
import { fixedClock } from "@/server/kit/clock";
import { callerFor, testConfig } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";

const START = "2026-11-29T09:00:00.000Z";
const someone: Caller = { kind: "anonymous", addressHash: "5eed5eed5eed5eed" };
const admin: Caller = { kind: "admin" };

const task = (id: string, state: TaskState) =>
  Task.fromJSON({ id, contextId: "c", status: { state: taskStateToJSON(state) } });
const stateOf = (found: Task | undefined) =>
  found && taskStateToJSON(found.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED);

/** The A2A task store: a final state is never written over, whichever request writes second. */
describe.each(DATABASE_KINDS)("A2A tasks on %s", (kind) => {
  const clock = fixedClock(START);
  const testDatabase = useTestDatabase(kind, { clock, start: START });
  const rows = (caller: Caller) =>
    new TaskRows({ db: testDatabase().db, caller, clock, aid: "tasked" });
  const agent = () =>
    callerFor(testDatabase().db, { clock, config: testConfig() }).agents.create({ aid: "tasked" });

  it("answers a cancel that lost to the end of the turn with the state that won", async () => {
    await agent();
    const running = rows(someone);
    running.begin("t1");
    expect(await running.load("t1")).toBeUndefined();
    await running.save(task("t1", TaskState.TASK_STATE_WORKING));
    // Another request reads it working, then the turn ends before its cancel is written.
    const cancelling = rows(someone);
    expect(stateOf(await cancelling.load("t1"))).toBe("TASK_STATE_WORKING");
    await running.save(task("t1", TaskState.TASK_STATE_COMPLETED));
    await cancelling.save(task("t1", TaskState.TASK_STATE_CANCELED));
    expect(stateOf(await cancelling.load("t1"))).toBe("TASK_STATE_COMPLETED");
    expect(await rows(someone).canceled("t1")).toBe(false);
    // The reverse: cancelled first, the end of the turn is not written over it.
    await running.save(task("t2", TaskState.TASK_STATE_WORKING));
    const late = rows(someone);
    await late.load("t2");
    await late.save(task("t2", TaskState.TASK_STATE_CANCELED));
    await running.save(task("t2", TaskState.TASK_STATE_COMPLETED));
    expect(stateOf(await rows(someone).load("t2"))).toBe("TASK_STATE_CANCELED");
    expect(await rows(someone).canceled("t2")).toBe(true);
  });

  it("lets the admin cancel a caller's task, and nobody else read it", async () => {
    await agent();
    await rows(someone).save(task("t3", TaskState.TASK_STATE_WORKING));
    expect(await rows({ kind: "anonymous", addressHash: "0ther0ther0ther0" }).load("t3")).toBe(
      undefined,
    );
    const byAdmin = rows(admin);
    expect(stateOf(await byAdmin.load("t3"))).toBe("TASK_STATE_WORKING");
    await byAdmin.save(task("t3", TaskState.TASK_STATE_CANCELED));
    expect(await rows(someone).canceled("t3")).toBe(true);
  });

  it("keeps no task refused before it began", async () => {
    await agent();
    const refused = rows(someone);
    refused.begin("t4");
    await refused.save(task("t4", TaskState.TASK_STATE_REJECTED));
    expect(await rows(someone).load("t4")).toBeUndefined();
  });
});
