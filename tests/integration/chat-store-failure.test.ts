import postgres from "postgres";
import { afterEach, describe, expect, it, vi } from "vitest";
import { chatMessages } from "@/db/schema";
import { fixedClock } from "@/server/kit/clock";
import { createModelRuntime } from "@/server/model-call";
import { metrics } from "@/server/observability";
import { callerFor, problemOf, testConfig } from "../helpers/context";
import { TEST_DATABASE_URL, useTestDatabase } from "../helpers/databases";
import { useFakeOpenAi } from "../helpers/use-fake-openai";

/**
 * A reply that arrived in time but could not be stored is the database's failure (503), not
 * a model timeout, even when the write outlives the model call's deadline. Seen under load in
 * CI: PostgreSQL out of connection slots while the store waited, answered 504 and 500.
 *
 * PostgreSQL only: the write is held on a real table lock, then its backend is terminated.
 */
describe.skipIf(!TEST_DATABASE_URL)("a reply that cannot be stored, on postgres", () => {
  const clock = fixedClock("2026-11-21T20:00:00Z");
  const testDatabase = useTestDatabase("postgres", { clock, start: "2026-11-21T20:00:00Z" });
  const fakeEndpoint = useFakeOpenAi("Hello from the fake model.");
  const TIMEOUT_MS = 300;
  const clients: postgres.Sql[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.end()));
  });

  const runtime = () =>
    createModelRuntime(
      testConfig({
        LLM_BASE_URL: fakeEndpoint().baseUrl,
        LLM_API_KEY: "sk-test",
        LLM_TIMEOUT_MS: String(TIMEOUT_MS),
      }),
    );
  const caller = (model = runtime()) => callerFor(testDatabase().db, { clock, model });
  /** Chats of `outcome` in this process's metrics. */
  const chatsCounted = async (outcome: string) =>
    (await metrics.chats.get()).values
      .filter((value) => value.labels.outcome === outcome)
      .reduce((sum, value) => sum + value.value, 0);

  /**
   * Runs `chat` with the threads table locked, so that its store waits; once the model's
   * deadline has passed, the waiting backend is terminated (57P01). Returns the chat's result.
   */
  async function withStoreFailingAfterDeadline<T>(chat: () => Promise<T>): Promise<T> {
    const url = testDatabase().url as string;
    const [locker, monitor] = [1, 2].map(() => postgres(url, { max: 1, onnotice: () => {} }));
    if (!locker || !monitor) throw new Error("unreachable");
    clients.push(locker, monitor);
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding: Promise<unknown> = Promise.resolve();
    await new Promise<void>((lockHeld) => {
      holding = locker.begin(async (tx) => {
        await tx`LOCK TABLE chat_threads IN EXCLUSIVE MODE`;
        lockHeld();
        await released;
      });
    });
    const started = performance.now();
    const result = chat();
    const waiting = () =>
      monitor.unsafe(
        `SELECT pid FROM pg_locks
          WHERE relation = 'chat_threads'::regclass AND mode = 'RowExclusiveLock' AND NOT granted`,
      );
    await vi.waitFor(async () => expect(await waiting()).toHaveLength(1), { timeout: 10_000 });
    const past = TIMEOUT_MS * 2 - (performance.now() - started);
    if (past > 0) await new Promise((resolve) => setTimeout(resolve, past));
    const [store] = await waiting();
    await monitor.unsafe("SELECT pg_terminate_backend($1)", [store?.pid]);
    try {
      return await result;
    } finally {
      release();
      await holding;
    }
  }

  it("answers the JSON chat 503 database_unavailable and gives the use back", async () => {
    await caller().agents.upsert({ aid: "unstored" });
    const unavailableBefore = await chatsCounted("unavailable");
    const failure = await withStoreFailingAfterDeadline(() =>
      problemOf(caller().chat.send({ aid: "unstored", q: "hi" })),
    );
    expect(failure).toMatchObject({ status: 503, code: "database_unavailable" });
    expect(await chatsCounted("unavailable")).toBe(unavailableBefore + 1);
    await vi.waitFor(async () =>
      expect((await caller().agents.get({ aid: "unstored" })).quota.message_count_total).toBe(0),
    );
    expect(await testDatabase().db.select().from(chatMessages)).toHaveLength(0);
  });

  it("ends the stream with 503 database_unavailable after every delta, and gives the use back", async () => {
    await caller().agents.upsert({ aid: "unstored-stream" });
    const types: string[] = [];
    const failure = await withStoreFailingAfterDeadline(() =>
      problemOf(
        (async () => {
          for await (const event of await caller().chat.stream({
            aid: "unstored-stream",
            q: "hi",
          }))
            types.push(event.type);
        })(),
      ),
    );
    expect(failure).toMatchObject({ status: 503, code: "database_unavailable" });
    expect(types).toContain("delta");
    expect(types).not.toContain("done");
    await vi.waitFor(async () =>
      expect(
        (await caller().agents.get({ aid: "unstored-stream" })).quota.message_count_total,
      ).toBe(0),
    );
  });
});
