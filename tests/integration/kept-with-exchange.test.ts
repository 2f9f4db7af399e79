import { sql } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { a2aTasks, chatMessages, chatReservations, responses } from "@/db/schema";
import { fixedClock } from "@/server/kit/clock";
import { createModelRuntime } from "@/server/model-call";
import { callerFor, testConfig } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";
import { useFakeOpenAi } from "../helpers/use-fake-openai";

const START = "2026-11-29T09:00:00.000Z";
const REPLY = "Kept with its exchange.";

/**
 * A kept response and an A2A task are written by the statement that stores the chat's exchange:
 * a reply stored keeps exactly one row of each, a reply that is not stored (its reservation
 * gone before the store, as the sweep takes a chat that outlived its bound) keeps none, and a
 * row that cannot be written leaves its exchange unstored (two statements would have kept it).
 */
describe.each(DATABASE_KINDS)("rows kept with the exchange on %s", (kind) => {
  const clock = fixedClock(START);
  const testDatabase = useTestDatabase(kind, { clock, start: START });
  const fake = useFakeOpenAi(REPLY);
  const caller = () =>
    callerFor(testDatabase().db, {
      clock,
      model: createModelRuntime(
        testConfig({ LLM_BASE_URL: fake().baseUrl, LLM_API_KEY: "sk-test", LLM_MAX_RETRIES: "0" }),
      ),
    });
  const message = (text: string) => ({
    aid: "kept",
    jsonrpc: "2.0",
    id: 1,
    method: "SendMessage",
    params: { message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] } },
  });
  const taskOf = (answer: unknown) =>
    (answer as { result: { task: { id: string; status: { state: string } } } }).result.task;

  /** Runs `asked` with the model's reply held until the chat's reservation is deleted. */
  async function withReservationGone<T>(asked: () => Promise<T>): Promise<T> {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    fake().behave({ kind: "reply", text: REPLY, gate });
    const answer = asked();
    await vi.waitFor(() => expect(fake().requests).toHaveLength(1), { timeout: 10_000 });
    await testDatabase().db.delete(chatReservations);
    release();
    return answer;
  }

  it("keeps one response and one completed task with each stored reply", async () => {
    const { db } = testDatabase();
    await caller().agents.create({ aid: "kept" });
    const response = await caller().responses.create({ model: "kept", input: "hi" });
    const task = taskOf(await caller().a2a.handle(message("hi")));
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    const kept = await db.select().from(responses);
    expect(kept.map((row) => [row.id, row.aid, row.outputText, row.status])).toEqual([
      [response.response.id, "kept", REPLY, "completed"],
    ]);
    const tasks = await db.select().from(a2aTasks);
    expect(tasks.map((row) => [row.id, row.aid, row.state])).toEqual([
      [task.id, "kept", "TASK_STATE_COMPLETED"],
    ]);
    // The row is the task the message was answered with.
    expect(tasks[0]?.task).toMatchObject({ id: task.id, status: task.status });
    // Not kept when asked not to be.
    await caller().responses.create({ model: "kept", input: "hi", store: false });
    expect(await db.select().from(responses)).toHaveLength(1);
  });

  it("keeps neither when the reply is not stored", async () => {
    const { db } = testDatabase();
    await caller().agents.create({ aid: "kept" });
    await expect(
      withReservationGone(() => caller().responses.create({ model: "kept", input: "hi" })),
    ).rejects.toThrow(/took too long to be stored/);
    expect(await db.select().from(responses)).toEqual([]);
    fake().requests.splice(0);
    const task = taskOf(await withReservationGone(() => caller().a2a.handle(message("hi"))));
    expect(task.status.state).toBe("TASK_STATE_FAILED");
    const tasks = await db.select().from(a2aTasks);
    expect(tasks.map((row) => [row.id, row.state])).toEqual([[task.id, "TASK_STATE_FAILED"]]);
  });

  /** Runs `asked` while `table` refuses every row `refused` matches (a CHECK constraint). */
  async function refusing<T>(table: string, refused: string, asked: () => Promise<T>) {
    const { db } = testDatabase();
    await db.execute(
      sql.raw(`ALTER TABLE ${table} ADD CONSTRAINT refused CHECK (NOT (${refused}))`),
    );
    try {
      return await asked();
    } finally {
      await db.execute(sql.raw(`ALTER TABLE ${table} DROP CONSTRAINT refused`));
    }
  }

  it("stores no exchange when its response or task cannot be written", async () => {
    const { db } = testDatabase();
    await caller().agents.create({ aid: "kept" });
    await expect(
      refusing("responses", "true", () =>
        caller().responses.create({ model: "kept", input: "hi" }),
      ),
    ).rejects.toThrow();
    const task = taskOf(
      await refusing("a2a_tasks", "state = 'TASK_STATE_COMPLETED'", () =>
        caller().a2a.handle(message("hi")),
      ),
    );
    expect(task.status.state).toBe("TASK_STATE_FAILED");
    // Both replies came, and neither exchange was stored without its row.
    expect(fake().requests).toHaveLength(2);
    expect(await db.select().from(chatMessages)).toEqual([]);
    expect(await db.select().from(responses)).toEqual([]);
  });
});
