import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type FakeOpenAi, startFakeOpenAi } from "../helpers/fake-openai";
import { type RunningServer, startServer, TEST_ADMIN_KEY } from "../helpers/server";

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };
const METRICS_TOKEN = "scraper-token-0123456789";

/** Request ids, log lines, metrics, probes and the admin's REST surface, on the built service. */
describe("running it in production", () => {
  let server: RunningServer;
  let fake: FakeOpenAi;

  beforeAll(async () => {
    fake = await startFakeOpenAi();
    fake.behave({ kind: "reply", text: "a reply" });
    server = await startServer({
      LLM_BASE_URL: fake.baseUrl,
      LLM_API_KEY: "sk-test",
      METRICS_TOKEN,
      SHUTDOWN_GRACE_MS: "3000",
    });
    const created = await fetch(`${server.url}/agents`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ aid: "ops-bot", autonomous_prompt: "Report." }),
    });
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    await server?.stop();
    await fake?.close();
  });

  /** The JSON log lines the server has printed. */
  const logLines = () =>
    server
      .output()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  it("puts a request id on every answer, keeps a sane incoming one, and names it in problems", async () => {
    const kept = await fetch(`${server.url}/health`, { headers: { "x-request-id": "trace-42" } });
    expect(kept.headers.get("x-request-id")).toBe("trace-42");
    const replaced = await fetch(`${server.url}/health`, {
      headers: { "x-request-id": `bad id with spaces ${"x".repeat(200)}` },
    });
    expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const refused = await fetch(`${server.url}/agents`, {
      headers: { "x-request-id": "trace-43" },
    });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ request_id: "trace-43" });
    const trpc = await fetch(`${server.url}/api/trpc/agents.list?input=%7B%7D`, {
      headers: { "x-request-id": "trace-44" },
    });
    expect(trpc.headers.get("x-request-id")).toBe("trace-44");
    expect((await trpc.json()).error.data.problem.request_id).toBe("trace-44");
    for (const path of ["/v1/nope", "/health/live", "/docs"]) {
      const response = await fetch(`${server.url}${path}`);
      await response.arrayBuffer();
      expect(response.headers.get("x-request-id"), path).toBeTruthy();
    }
  });

  it("logs one JSON line per request, by route pattern, without keys, questions or replies", async () => {
    const key = await (
      await fetch(`${server.url}/agents/ops-bot/keys`, {
        method: "POST",
        headers: admin,
        body: JSON.stringify({ name: "logged?" }),
      })
    ).json();
    const chat = await fetch(`${server.url}/ops-bot/chat?q=my-secret-question`, {
      headers: { authorization: `Bearer ${key.key}`, "x-request-id": "chat-line" },
    });
    expect(await chat.text()).toBe("a reply");
    // Request lines are written in batches, within 100 ms (server/observability/log-stream.ts).
    const line = await vi.waitFor(
      () => {
        const found = logLines().find((entry) => entry.request_id === "chat-line");
        if (!found) throw new Error("the chat's request line is not written yet");
        return found;
      },
      { timeout: 5000 },
    );
    expect(line).toMatchObject({
      level: "info",
      msg: "request",
      method: "GET",
      route: "/{aid}/chat",
      status: 200,
      aid: "ops-bot",
      caller: "key",
    });
    expect(typeof line?.duration_ms).toBe("number");
    expect(typeof line?.time).toBe("string");
    const output = server.output();
    for (const secret of [TEST_ADMIN_KEY, key.key, "my-secret-question", "a reply"])
      expect(output).not.toContain(secret);
  });

  it("logs a request under its operation's declared path, whatever its parameters' values", async () => {
    // A thread named like the path's own last segment, and a method the path does not serve.
    const read = await fetch(`${server.url}/agents/ops-bot/threads/messages/messages`, {
      headers: { ...admin, "x-request-id": "segment-line" },
    });
    expect(read.status).toBe(200);
    await read.arrayBuffer();
    const refused = await fetch(`${server.url}/agents/ops-bot/runs`, {
      method: "PUT",
      headers: { ...admin, "x-request-id": "refused-line" },
    });
    expect(refused.status).toBe(405);
    await refused.arrayBuffer();
    const lines = await vi.waitFor(
      () => {
        const found = ["segment-line", "refused-line"].map((id) =>
          logLines().find((entry) => entry.request_id === id),
        );
        if (found.some((line) => line === undefined)) throw new Error("not written yet");
        return found;
      },
      { timeout: 5000 },
    );
    expect(lines.map((line) => line?.route)).toEqual([
      "/agents/{aid}/threads/{chat_id}/messages",
      "/agents/{aid}/runs",
    ]);
  });

  it("times a streamed chat's first token once, however many pieces the reply comes in", async () => {
    const scrape = async () =>
      (
        await fetch(`${server.url}/metrics`, {
          headers: { authorization: `Bearer ${METRICS_TOKEN}` },
        })
      ).text();
    const count = (text: string, metric: string) =>
      Number(new RegExp(`^${metric} (\\d+)$`, "m").exec(text)?.[1] ?? 0);
    // An agent of its own: the tests after this one count ops-bot's chats and threads.
    const created = await fetch(`${server.url}/agents`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ aid: "stream-bot" }),
    });
    expect(created.status).toBe(201);
    const before = await scrape();
    fake.behave({
      kind: "reply",
      text: "one two three four five six seven eight",
      chunks: 8,
      chunkDelayMs: 5,
    });
    try {
      const chat = await fetch(`${server.url}/stream-bot/chat?q=stream`, {
        headers: { accept: "text/event-stream" },
      });
      const events = await chat.text();
      // The reply came in several deltas: the histogram could have counted each.
      expect(events.match(/^event: delta$/gm)?.length).toBeGreaterThan(1);
      expect(events).toContain("event: done");
    } finally {
      fake.behave({ kind: "reply", text: "a reply" });
    }
    const after = await scrape();
    const firstTokens = "agent_model_time_to_first_token_seconds_count";
    const streamedCalls = 'agent_model_call_duration_seconds_count\\{stream="true"\\}';
    expect(count(after, firstTokens) - count(before, firstTokens)).toBe(1);
    expect(count(after, streamedCalls) - count(before, streamedCalls)).toBe(1);
  });

  it("serves Prometheus metrics to the admin key or METRICS_TOKEN only", async () => {
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
    const scraped = await fetch(`${server.url}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get("content-type")).toContain("text/plain");
    const text = await scraped.text();
    expect(text).toMatch(/^agent_chat_requests_total\{outcome="ok",via="chat"\} [1-9]/m);
    expect(text).toMatch(/^agent_model_tokens_total\{direction="out"\} [1-9]/m);
    expect(text).toMatch(/^agent_model_call_duration_seconds_count\{stream="false"\} [1-9]/m);
    expect(text).toMatch(/^agent_model_slots_in_use 0$/m);
    // Sampled every 100 ms from the start: within a second many samples, each in a bucket.
    await vi.waitFor(
      async () => {
        const again = await fetch(`${server.url}/metrics`, {
          headers: { authorization: `Bearer ${METRICS_TOKEN}` },
        });
        const sampled = await again.text();
        expect(sampled).toMatch(/^agent_event_loop_delay_seconds_count [1-9]\d/m);
        expect(sampled).toMatch(/^agent_event_loop_delay_seconds_bucket\{le="0.005"\} [1-9]/m);
      },
      { timeout: 5000, interval: 250 },
    );
    expect(text).toMatch(/^process_resident_memory_bytes /m);
    // Bounded labels: no aid unless METRICS_PER_AGENT.
    expect(text).not.toContain('aid="ops-bot"');
    // A scraper's token never counts as a wrong admin key (it would get the scraper blocked).
    for (let i = 0; i < 8; i++) {
      const again = await fetch(`${server.url}/metrics`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      expect(again.status).toBe(200);
    }
    expect(
      (
        await fetch(`${server.url}/metrics`, {
          headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` },
        })
      ).status,
    ).toBe(200);
  });

  it("gives the admin the dashboard's agent operations over REST", async () => {
    expect((await fetch(`${server.url}/agents/ops-bot`, { headers: admin })).status).toBe(200);
    const threads = await (
      await fetch(`${server.url}/agents/ops-bot/threads`, { headers: admin })
    ).json();
    const thread = threads.threads[0];
    expect(thread).toMatchObject({ chat_id: "default", caller_label: "key 'logged?'" });
    const messages = await (
      await fetch(
        `${server.url}/agents/ops-bot/threads/default/messages?caller=${encodeURIComponent(thread.caller)}`,
        { headers: admin },
      )
    ).json();
    expect(messages.messages.map((m: { content: string }) => m.content)).toEqual([
      "my-secret-question",
      "a reply",
    ]);
    expect(messages.messages[1].usage).toMatchObject({ output_tokens: 5 });

    const run = await fetch(`${server.url}/agents/ops-bot/runs`, {
      method: "POST",
      headers: admin,
    });
    expect(run.status).toBe(202);
    expect(await run.json()).toMatchObject({ outcome: "succeeded", trigger: "manual" });

    const reset = await fetch(`${server.url}/agents/ops-bot/quota/reset`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ counters: ["message_daily"] }),
    });
    expect((await reset.json()).quota).toMatchObject({
      message_count_daily: 0,
      message_count_total: 1,
      autonomous_count_total: 1,
    });
    const unknown = await fetch(`${server.url}/agents/ops-bot/quota/reset`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ counters: ["everything"] }),
    });
    expect(unknown.status).toBe(400);
    const all = await fetch(`${server.url}/agents/ops-bot/quota/reset`, {
      method: "POST",
      headers: { authorization: admin.authorization },
    });
    expect((await all.json()).quota).toMatchObject({
      message_count_total: 0,
      autonomous_count_total: 0,
    });

    expect(
      (await fetch(`${server.url}/agents/ops-bot`, { method: "DELETE", headers: admin })).status,
    ).toBe(204);
    expect((await fetch(`${server.url}/agents/ops-bot`, { headers: admin })).status).toBe(404);
    expect(
      (await fetch(`${server.url}/agents/ops-bot`, { method: "DELETE", headers: admin })).status,
    ).toBe(404);
    // The aid is free again, with nothing of the old agent's.
    const again = await fetch(`${server.url}/agents`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ aid: "ops-bot" }),
    });
    expect(again.status).toBe(201);
    expect(
      (await (await fetch(`${server.url}/agents/ops-bot/threads`, { headers: admin })).json())
        .threads,
    ).toEqual([]);
    expect(
      (await (await fetch(`${server.url}/agents/ops-bot/keys`, { headers: admin })).json()).keys,
    ).toEqual([]);
  });

  it("answers live always, and ready until it drains on SIGTERM, within SHUTDOWN_GRACE_MS", async () => {
    expect(await (await fetch(`${server.url}/health/live`)).json()).toEqual({ status: "live" });
    expect((await fetch(`${server.url}/health/ready`)).status).toBe(200);
    // A chat the model holds for 2 s keeps the process draining meanwhile.
    fake.behave({ kind: "reply", text: "slow", delayMs: 2000 });
    const slow = fetch(`${server.url}/ops-bot/chat?q=slow`).then((r) => r.status);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    const exited = server.signal("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const ready = await fetch(`${server.url}/health/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: "not_ready" });
    expect((await fetch(`${server.url}/health/live`)).status).toBe(200);
    expect(await slow).toBe(200);
    expect(await exited).toBe(0);
    // Bounded by the one grace (3 s), not by the scheduler's and the chats' one after the other.
    expect(Date.now() - started).toBeLessThan(3000 + 1500);
  });
});
