import { afterAll, describe, expect, it } from "vitest";
import type { Caller } from "@/server/callers";
import { fixedClock } from "@/server/kit/clock";
import { createModelRuntime, type ModelRuntime } from "@/server/model-call";
import { requestLogOf } from "@/server/request-log";
import { callerFor, problemOf, testConfig } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";
import { useFakeOpenAi } from "../helpers/use-fake-openai";

const START = "2026-11-29T10:00:00.000Z";
const alice: Caller = { kind: "anonymous", addressHash: "a11ce0a11ce0a11c" };
const mallory: Caller = { kind: "anonymous", addressHash: "3a110e3a110e3a11" };

/**
 * Issue #48, item 3: a chat in flight cancelled by its request id, JSON and streamed; only by
 * its caller or the admin; the model call closed, the use given back, the cancel in the request
 * log. (Across instances, where the cancel is read from the database: tests/http/chat-cancel.)
 */
describe.each(DATABASE_KINDS)("cancelling a chat on %s", (kind) => {
  const clock = fixedClock(START);
  const database = useTestDatabase(kind, { clock, start: START });
  const fake = useFakeOpenAi();
  const runtimes: ModelRuntime[] = [];
  afterAll(() => Promise.all(runtimes.map((r) => r.endpoints.connections.close())));
  const model = () => {
    const made = createModelRuntime(
      testConfig({ LLM_BASE_URL: fake().baseUrl, LLM_API_KEY: "sk-test", LLM_MAX_RETRIES: "0" }),
    );
    runtimes.push(made);
    return made;
  };
  const as = (caller: Caller | "admin", requestId: string, runtime?: ModelRuntime) =>
    callerFor(database().db, {
      clock,
      model: runtime,
      requestId,
      ...(caller === "admin" ? {} : { admin: false, caller }),
    });
  const admin = () => callerFor(database().db, { clock });
  const usedToday = async (aid: string) =>
    (await admin().agents.get({ aid })).quota.message_count_daily;

  it("stops a JSON chat: 409 chat_cancelled, the model call closed, the use given back, logged", async () => {
    await admin().agents.upsert({ aid: "stoppable", rate_limit_rpm: null });
    fake().behave({ kind: "hang" });
    const asked = problemOf(
      as(alice, "req-json", model()).chat.send({ aid: "stoppable", q: "hi" }),
    );
    await expect.poll(() => fake().inFlight()).toBe(1);

    // Another caller may not; the admin, or the same caller, may.
    await expect(
      problemOf(as(mallory, "other").chat.cancel({ aid: "stoppable", request_id: "req-json" })),
    ).resolves.toMatchObject({ status: 404 });
    expect(
      await as(alice, "cancel").chat.cancel({ aid: "stoppable", request_id: "req-json" }),
    ).toEqual({ request_id: "req-json", cancelled: true });

    expect(await asked).toMatchObject({
      status: 409,
      code: "chat_cancelled",
      detail:
        "The chat was cancelled on request (POST /{aid}/chat/{request_id}/cancel) before it ended.",
    });
    await expect.poll(() => fake().inFlight()).toBe(0);
    expect(await usedToday("stoppable")).toBe(0);
    await requestLogOf(database().db).flush();
    const { requests } = await admin().requestLog.list({ aid: "stoppable" });
    expect(requests.map((r) => [r.request_id, r.status, r.code])).toEqual([
      ["req-json", 409, "chat_cancelled"],
    ]);
  });

  it("stops a stream mid-reply, for the admin too; a chat that has ended is 404", async () => {
    await admin().agents.upsert({ aid: "streaming", rate_limit_rpm: null });
    fake().behave({ kind: "stall", text: "the first words and then nothing" });
    const events: unknown[] = [];
    const streamed = (async () => {
      const stream = await as(alice, "req-sse", model()).chat.stream({ aid: "streaming", q: "hi" });
      for await (const event of stream) events.push(event);
    })();
    const failed = problemOf(streamed);
    await expect
      .poll(() => events.some((e) => (e as { type: string }).type === "delta"))
      .toBe(true);
    expect(await admin().chat.cancel({ aid: "streaming", request_id: "req-sse" })).toEqual({
      request_id: "req-sse",
      cancelled: true,
    });
    expect(await failed).toMatchObject({ status: 409, code: "chat_cancelled" });
    await expect.poll(() => fake().inFlight()).toBe(0);
    expect(await usedToday("streaming")).toBe(0);

    fake().behave({ kind: "reply", text: "done" });
    await as(alice, "req-done", model()).chat.send({ aid: "streaming", q: "again" });
    await expect(
      problemOf(as(alice, "late").chat.cancel({ aid: "streaming", request_id: "req-done" })),
    ).resolves.toMatchObject({
      status: 404,
      detail:
        "No chat of agent 'streaming' with request id 'req-done' is in flight for you: it has ended, has not begun, or is another caller's.",
    });
    expect(await usedToday("streaming")).toBe(1);
  });

  it("refuses a malformed request id, and a key the agent does not take", async () => {
    await admin().agents.upsert({ aid: "keyed", chat_access: "key" });
    await expect(
      problemOf(as(alice, "x").chat.cancel({ aid: "keyed", request_id: "not an id" })),
    ).resolves.toMatchObject({ status: 400 });
    await expect(
      problemOf(as(alice, "x").chat.cancel({ aid: "keyed", request_id: "r-1" })),
    ).resolves.toMatchObject({ status: 401, code: "key_required" });
  });
});
