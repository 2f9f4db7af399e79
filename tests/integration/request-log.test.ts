import { describe, expect, it, vi } from "vitest";
import { createDatabase } from "@/db/client";
import { parseAgentKey } from "@/server/agent-keys";
import type { Caller } from "@/server/callers";
import { fixedClock } from "@/server/kit/clock";
import { createModelRuntime, type ModelRuntime } from "@/server/model-call";
import { metrics } from "@/server/observability";
import {
  MAX_BUFFERED,
  purgeOldRequests,
  type RequestEntry,
  RequestLog,
  type RequestRecord,
  requestLogOf,
} from "@/server/request-log";
import { callerFor, problemOf, testConfig } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";
import { useFakeOpenAi } from "../helpers/use-fake-openai";

const START = "2026-11-24T09:00:00.000Z";
const anonymous: Caller = { kind: "anonymous", addressHash: "5eed5eed5eed5eed" };
const withKey = (key: string): Caller => ({ kind: "key", key: parseAgentKey(key) as never });

/** The request log (issue 28, item 2): what each chat's end writes, and reading it back. */
describe.each(DATABASE_KINDS)("the request log on %s", (kind) => {
  const clock = fixedClock(START);
  const testDatabase = useTestDatabase(kind, { clock, start: START });
  const fake = useFakeOpenAi("logged reply");
  const model = (env: Record<string, string> = {}): ModelRuntime =>
    createModelRuntime(
      testConfig({ LLM_BASE_URL: fake().baseUrl, LLM_API_KEY: "sk-test", ...env }),
    );
  const admin = (env: Record<string, string> = {}) =>
    callerFor(testDatabase().db, { clock, config: testConfig(env) });
  /** A chat's caller, with a request id and a model on the fake endpoint. */
  const as = (
    caller: Caller | "admin",
    requestId: string,
    options: { model?: ModelRuntime; signal?: AbortSignal } = {},
  ) =>
    callerFor(testDatabase().db, {
      clock,
      model: options.model ?? model(),
      signal: options.signal,
      requestId,
      ...(caller === "admin" ? {} : { admin: false, caller }),
    });
  const agent = (aid: string, fields: Record<string, unknown> = {}) =>
    admin().agents.upsert({ aid, rate_limit_rpm: null, ...fields } as { aid: string });
  const list = (input: Parameters<ReturnType<typeof admin>["requestLog"]["list"]>[0] = {}) =>
    admin().requestLog.list(input);
  const ask = (q: string) => [{ role: "user" as const, content: q }];

  it("logs every chat and completion once, replies and refusals alike, with what each ended as", async () => {
    // 10 tokens in at 1 and 5 out at 2 a million: 0.00002 a reply.
    await admin().prices.set({ model: "gpt-4o-mini", input_per_million: 1, output_per_million: 2 });
    await agent("logged");
    await agent("private", { chat_access: "key" });
    await agent("one-a-day", { quota: { message_limit_daily: 1 } });
    await agent("one-a-minute", { rate_limit_rpm: 1 });
    const key = (await admin().agentKeys.create({ aid: "private", name: "mobile app" })).key;
    const otherKey = (await admin().agentKeys.create({ aid: "logged", name: "other" })).key;
    const step = () => clock.advance(1000);

    // 200s: a chat, streamed and not; a completion, streamed and not (its thread is `openai`).
    await as(withKey(key), "r-chat").chat.send({ aid: "private", q: "hi", chat_id: "ticket-1" });
    step();
    for await (const _ of await as("admin", "r-chat-sse").chat.stream({ aid: "logged", q: "hi" }));
    step();
    await as(anonymous, "r-completion").completions.create({ model: "logged", messages: ask("a") });
    step();
    const streamed = await as(anonymous, "r-completion-sse").completions.stream({
      model: "logged",
      messages: ask("b"),
      stream: true,
    });
    for await (const _ of streamed);
    step();
    // 404: no such agent, by chat and as a model.
    await problemOf(as("admin", "r-404").chat.send({ aid: "nobody", q: "hi" }));
    step();
    await problemOf(
      as(anonymous, "r-404-model").completions.create({ model: "nobody", messages: ask("a") }),
    );
    step();
    // 401: a key-only agent without a key, and with another agent's key.
    await problemOf(as(anonymous, "r-401").chat.send({ aid: "private", q: "hi" }));
    step();
    await problemOf(as(withKey(otherKey), "r-401-key").chat.send({ aid: "private", q: "hi" }));
    step();
    // 429: the daily quota, then the rate limit.
    await as("admin", "r-quota-ok").chat.send({ aid: "one-a-day", q: "1" });
    step();
    await problemOf(as("admin", "r-quota").chat.send({ aid: "one-a-day", q: "2" }));
    step();
    await as(anonymous, "r-rate-ok").chat.send({ aid: "one-a-minute", q: "1" });
    step();
    await problemOf(as(anonymous, "r-rate").chat.send({ aid: "one-a-minute", q: "2" }));
    step();
    // 502: the provider fails; 504: it does not answer in time.
    fake().behave({ kind: "error", status: 500 });
    await problemOf(
      as("admin", "r-502", { model: model({ LLM_MAX_RETRIES: "0" }) }).chat.send({
        aid: "logged",
        q: "hi",
      }),
    );
    step();
    fake().behave({ kind: "hang" });
    // One model slot, held for a second: long enough to be refused a second one meanwhile.
    const slow = model({ LLM_TIMEOUT_MS: "1000", LLM_MAX_CONCURRENCY: "1" });
    const held = problemOf(
      as("admin", "r-504", { model: slow }).chat.send({ aid: "logged", q: "hold" }),
    );
    await vi.waitFor(() => expect(fake().inFlight()).toBe(1), { timeout: 10_000 });
    // 503: the one model slot is held by the chat above.
    step();
    await problemOf(as("admin", "r-503", { model: slow }).chat.send({ aid: "logged", q: "more" }));
    await held;
    step();
    // 499: the client leaves while the model thinks, and a streaming one at its first delta.
    const controller = new AbortController();
    const asked = fake().requests.length;
    const leaving = problemOf(
      as("admin", "r-499", { signal: controller.signal }).chat.send({ aid: "logged", q: "hi" }),
    );
    await vi.waitFor(() => expect(fake().requests.length).toBe(asked + 1), { timeout: 10_000 });
    controller.abort();
    await leaving;
    step();
    fake().behave({ kind: "stall", text: "partial answer" });
    for await (const event of await as("admin", "r-499-sse").chat.stream({ aid: "logged", q: "x" }))
      if (event.type === "delta") break;

    const { requests } = await list({ limit: 500 });
    const expected: Partial<RequestRecord>[] = [
      { request_id: "r-499-sse", status: 499, code: "client_closed_request", via: "chat" },
      { request_id: "r-499", status: 499, code: "client_closed_request" },
      { request_id: "r-503", status: 503, code: "service_unavailable" },
      { request_id: "r-504", status: 504, code: "provider_timeout" },
      { request_id: "r-502", status: 502, code: "provider_error" },
      { request_id: "r-rate", status: 429, code: "rate_limited", aid: "one-a-minute" },
      { request_id: "r-rate-ok", status: 200, code: null },
      { request_id: "r-quota", status: 429, code: "quota_exceeded", aid: "one-a-day" },
      { request_id: "r-quota-ok", status: 200, code: null },
      { request_id: "r-401-key", status: 401, code: "invalid_key", aid: "private" },
      { request_id: "r-401", status: 401, code: "key_required", aid: "private" },
      { request_id: "r-404-model", status: 404, code: "agent_not_found", via: "completions" },
      { request_id: "r-404", status: 404, code: "agent_not_found", via: "chat", aid: "nobody" },
      { request_id: "r-completion-sse", status: 200, via: "completions", chat_id: "openai" },
      { request_id: "r-completion", status: 200, via: "completions", chat_id: "openai" },
      { request_id: "r-chat-sse", status: 200, via: "chat", caller: "admin" },
      { request_id: "r-chat", status: 200, via: "chat", chat_id: "ticket-1" },
    ];
    expect(requests.map((r) => r.request_id)).toEqual(expected.map((r) => r.request_id));
    for (const [i, row] of requests.entries()) expect(row).toMatchObject(expected[i] as object);

    const byId = (id: string) => requests.find((r) => r.request_id === id) as RequestRecord;
    const keyId = (parseAgentKey(key) as { id: string }).id;
    // A stored reply carries its tokens and cost; nothing else does.
    for (const id of ["r-chat", "r-chat-sse", "r-completion", "r-completion-sse", "r-rate-ok"])
      expect(byId(id), id).toMatchObject({ input_tokens: 10, output_tokens: 5, cost: 0.00002 });
    for (const row of requests.filter((r) => r.status !== 200))
      expect(row, row.request_id ?? "").toMatchObject({
        input_tokens: null,
        output_tokens: null,
        cost: null,
      });
    expect(byId("r-chat")).toMatchObject({
      aid: "private",
      caller: `key:${keyId}`,
      caller_label: "key 'mobile app'",
      started_at: START,
    });
    expect(byId("r-completion")).toMatchObject({
      caller: "addr:5eed5eed5eed5eed",
      caller_label: "address #5eed5eed",
      started_at: "2026-11-24T09:00:02.000Z",
    });
    // The one that waited for its deadline took about that long; a refusal took less.
    expect(byId("r-504").latency_ms).toBeGreaterThanOrEqual(990);
    expect(byId("r-401").latency_ms).toBeLessThan(byId("r-504").latency_ms);
  });

  it("filters by agent, caller, status and time, and pages both ways", async () => {
    await agent("alpha");
    await agent("beta", { chat_access: "key" });
    // alpha: 6 replies, one a second, from 09:00:00; beta: 3 refusals (no key), from 09:00:06.
    for (let i = 0; i < 6; i++) {
      await as(i % 2 ? anonymous : "admin", `a-${i}`).chat.send({ aid: "alpha", q: `${i}` });
      clock.advance(1000);
    }
    for (let i = 0; i < 3; i++) {
      await problemOf(as(anonymous, `b-${i}`).chat.send({ aid: "beta", q: "hi" }));
      clock.advance(1000);
    }
    const ids = (page: { requests: RequestRecord[] }) => page.requests.map((r) => r.request_id);
    expect(ids(await list())).toEqual([
      "b-2",
      "b-1",
      "b-0",
      "a-5",
      "a-4",
      "a-3",
      "a-2",
      "a-1",
      "a-0",
    ]);
    expect(ids(await list({ aid: "beta" }))).toEqual(["b-2", "b-1", "b-0"]);
    expect(ids(await list({ aid: "alpha", caller: "admin" }))).toEqual(["a-4", "a-2", "a-0"]);
    expect(ids(await list({ caller: "addr:5eed5eed5eed5eed", status: 401 }))).toEqual([
      "b-2",
      "b-1",
      "b-0",
    ]);
    expect(ids(await list({ status: "failed" }))).toEqual(["b-2", "b-1", "b-0"]);
    expect(ids(await list({ status: 200, aid: "beta" }))).toEqual([]);
    // From inclusive, to exclusive.
    expect(ids(await list({ from: "2026-11-24T09:00:02Z", to: "2026-11-24T09:00:04Z" }))).toEqual([
      "a-3",
      "a-2",
    ]);

    // Pages of 4, newest first, then back.
    const first = await list({ limit: 4 });
    expect(ids(first)).toEqual(["b-2", "b-1", "b-0", "a-5"]);
    expect(first.prev_cursor).toBeNull();
    const second = await list({ limit: 4, cursor: first.next_cursor ?? undefined });
    expect(ids(second)).toEqual(["a-4", "a-3", "a-2", "a-1"]);
    const third = await list({ limit: 4, cursor: second.next_cursor ?? undefined });
    expect(ids(third)).toEqual(["a-0"]);
    expect(third.next_cursor).toBeNull();
    const back = await list({ limit: 4, cursor: third.prev_cursor ?? undefined });
    expect(ids(back)).toEqual(ids(second));
    const start = await list({ limit: 4, cursor: back.prev_cursor ?? undefined });
    expect(ids(start)).toEqual(ids(first));
    expect(start.prev_cursor).toBeNull();
    // With a filter, the cursor pages within it.
    const failures = await list({ status: "failed", limit: 2 });
    expect(ids(failures)).toEqual(["b-2", "b-1"]);
    expect(
      ids(await list({ status: "failed", limit: 2, cursor: failures.next_cursor ?? undefined })),
    ).toEqual(["b-0"]);
  });

  it("refuses a bad filter or cursor with a sentence naming it, and is for the admin only", async () => {
    const refused = async (input: Record<string, unknown>) =>
      problemOf(list(input as Parameters<typeof list>[0]));
    expect(await refused({ status: "500s" })).toMatchObject({
      status: 400,
      code: "validation_failed",
      errors: [{ field: "status" }],
    });
    expect((await refused({ status: 99 })).detail).toContain("status must be an HTTP status");
    expect(await refused({ from: "yesterday" })).toMatchObject({ errors: [{ field: "from" }] });
    expect(
      await refused({ from: "2026-11-24T10:00:00Z", to: "2026-11-24T09:00:00Z" }),
    ).toMatchObject({ detail: "The request has invalid fields: to must be after from." });
    expect(await refused({ caller: "" })).toMatchObject({ errors: [{ field: "caller" }] });
    expect(await refused({ cursor: "bm90LWEtY3Vyc29y" })).toMatchObject({
      status: 400,
      code: "invalid_cursor",
    });
    expect(
      await problemOf(callerFor(testDatabase().db, { clock, admin: false }).requestLog.list({})),
    ).toMatchObject({ status: 401 });
  });

  it("keeps a deleted agent's rows, and deletes rows past REQUEST_LOG_DAYS in the housekeeping", async () => {
    await agent("short-lived");
    await as("admin", "old").chat.send({ aid: "short-lived", q: "hi" });
    clock.advance(10 * 86_400_000);
    await as("admin", "recent").chat.send({ aid: "short-lived", q: "hi" });
    await admin().agents.delete({ aid: "short-lived" });
    const ids = async () => (await list()).requests.map((r) => r.request_id);
    expect(await ids()).toEqual(["recent", "old"]);
    const db = testDatabase().db;
    // 14 days on from the first: it goes, the one of 10 days later stays.
    clock.advance(4 * 86_400_000 + 1);
    expect(await purgeOldRequests(db, clock.now(), 14)).toBe(1);
    expect(await ids()).toEqual(["recent"]);
    expect(await purgeOldRequests(db, clock.now(), 14)).toBe(0);
    // 0 days: no request log. Nothing is written, and what was there goes.
    await agent("unlogged");
    await callerFor(db, { clock, config: testConfig({ REQUEST_LOG_DAYS: "0" }) }).chat.send({
      aid: "unlogged",
      q: "hi",
    });
    expect(await purgeOldRequests(db, clock.now(), 0)).toBe(1);
    expect(await ids()).toEqual([]);
  });

  it("writes rows that come during a write in a batch of their own, not right after it", async () => {
    const db = testDatabase().db;
    let inserts = 0;
    // The database as it is, its statements counted; five rows come while the first is written.
    const counted = new Proxy(db, {
      get: (target, property, receiver) =>
        property === "execute"
          ? (...args: Parameters<typeof db.execute>) => {
              const written = target.execute(...args);
              if (inserts++ === 0)
                for (let i = 0; i < 5; i++) log.record(entry({ chat_id: `later-${i}` }));
              return written;
            }
          : Reflect.get(target, property, receiver),
    });
    const log = new RequestLog(counted);
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      for (let i = 0; i < 10; i++) log.record(entry({ chat_id: `first-${i}` }));
      await log.flush();
      expect(inserts).toBe(1);
      expect(log.pending).toBe(5);
      // Their own batch, when its time comes.
      await vi.advanceTimersByTimeAsync(1000);
      await log.flush();
      expect(inserts).toBe(2);
      expect(log.pending).toBe(0);
    } finally {
      vi.useRealTimers();
      await log.close();
    }
    expect((await list({ limit: 100 })).requests).toHaveLength(15);
  });

  it("deletes a large backlog in batches, oldest first", async () => {
    const db = testDatabase().db;
    const log = requestLogOf(db);
    // 12,000 rows, one a second from START (written 500 to an INSERT).
    const at = (s: number) => new Date(Date.parse(START) + s * 1000);
    for (let i = 0; i < 12_000; i++) log.record(entry({ started_at: at(i) }));
    await log.flush();
    expect(log.pending).toBe(0);
    // A day after the 10,000th second: the 10,000 before it go, in statements of 1,000.
    expect(await purgeOldRequests(db, at(10_000 + 86_400), 1)).toBe(10_000);
    const oldest = await list({ to: at(10_001).toISOString() });
    expect(oldest.requests.map((r) => r.started_at)).toEqual([at(10_000).toISOString()]);
    expect(await purgeOldRequests(db, at(12_000 + 86_400), 1)).toBe(2_000);
    expect((await list()).requests).toEqual([]);
  });
});

/** A row as the chat engine writes it. */
function entry(fields: Partial<RequestEntry> = {}): RequestEntry {
  return {
    started_at: new Date(START),
    via: "chat",
    aid: "buffered",
    caller: "admin",
    chat_id: "default",
    status: 200,
    code: null,
    latency_ms: 12,
    model: null,
    input_tokens: 1,
    output_tokens: 2,
    cost: null,
    request_id: null,
    ...fields,
  };
}

describe("the request log's buffer", () => {
  it("holds rows while the database is unreachable, up to its bound, and counts what it drops", async () => {
    // A real driver on a port where nothing listens: every write fails as an outage does.
    const database = createDatabase({
      kind: "postgres",
      url: "postgres://nobody@127.0.0.1:1/none",
    });
    const log = new RequestLog(database.db);
    const dropped = async () =>
      (await metrics.requestLogDropped.get()).values.find((v) => v.labels.reason === "full")
        ?.value ?? 0;
    const before = await dropped();
    try {
      for (let i = 0; i < MAX_BUFFERED + 7; i++) log.record(entry());
      expect(log.pending).toBe(MAX_BUFFERED);
      expect((await dropped()) - before).toBe(7);
      await log.flush();
      // Not written, not lost: kept for the next try.
      expect(log.pending).toBe(MAX_BUFFERED);
      log.record(entry());
      expect((await dropped()) - before).toBe(8);
    } finally {
      await log.close().catch(() => {});
      await database.close();
    }
  });
});
