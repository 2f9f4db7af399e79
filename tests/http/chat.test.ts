import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../helpers/database-kinds";
import type { FakeOpenAi } from "../helpers/fake-openai";
import { type ModelServer, startModelServer } from "../helpers/model-server";
import { type RunningServer, TEST_ADMIN_KEY } from "../helpers/server";

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };

/** Splits server-sent events out of a text buffer; returns the events and what is left over. */
function parseEvents(buffer: string): { events: { event: string; data: unknown }[]; rest: string } {
  const blocks = buffer.split("\n\n");
  const rest = blocks.pop() ?? "";
  const events = blocks.map((block) => {
    const event = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
    const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? "null");
    return { event, data };
  });
  return { events, rest };
}

describe.each(DATABASE_KINDS)("GET /{aid}/chat over HTTP on %s", (kind) => {
  let server: RunningServer;
  let fake: FakeOpenAi;
  let running: ModelServer | undefined;

  beforeAll(async () => {
    running = await startModelServer(kind, {
      LLM_MAX_RETRIES: "0",
      // Long enough that a CI machine busy with other test files does not time out the ten
      // calls of the 100-chat burst (seen at 1.5 s); two tests wait it out on a hung model.
      LLM_TIMEOUT_MS: "5000",
      // Room for 100 requests at once, so the concurrency test measures the quota, not the cap.
      LLM_MAX_CONCURRENCY: "200",
      // A stream whose client left waits this long to be resumed, then is stopped.
      CHAT_RESUME_S: "1",
    });
    ({ server, fake } = running);
  });
  afterAll(() => running?.stop());
  beforeEach(() => {
    fake.behave({ kind: "reply", text: "Hello from the fake model." });
  });

  const createAgent = async (aid: string, quota: Record<string, number | null> = {}) => {
    const response = await fetch(`${server.url}/agents`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ aid, quota }),
    });
    expect(response.status).toBeLessThan(300);
  };
  const chat = (aid: string, q: string, headers: Record<string, string> = {}, extra = "") =>
    fetch(`${server.url}/${aid}/chat?q=${encodeURIComponent(q)}${extra}`, { headers });
  const messageCount = async (aid: string): Promise<number> => {
    const response = await fetch(`${server.url}/agents?q=${aid}`, { headers: admin });
    const { agents } = await response.json();
    return agents.find((a: { aid: string }) => a.aid === aid).quota.message_count_total;
  };

  it("reports the OpenAI-compatible provider in /health", async () => {
    expect(await (await fetch(`${server.url}/health`)).json()).toMatchObject({
      provider: "openai-compatible",
    });
  });

  it("answers text/plain by default, JSON and SSE when asked", async () => {
    await createAgent("formats");
    const plain = await chat("formats", "hi");
    expect(plain.status).toBe(200);
    expect(plain.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await plain.text()).toBe("Hello from the fake model.");

    const asJson = await chat("formats", "hi", { accept: "application/json" }, "&chat_id=side");
    expect(asJson.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await asJson.json()).toMatchObject({
      aid: "formats",
      chat_id: "side",
      reply: "Hello from the fake model.",
      quota: { message_count_total: 2 },
      remaining: { messages_daily: 998 },
    });

    const preferred = await chat("formats", "hi", { accept: "text/html;q=0.9, application/json" });
    expect(preferred.headers.get("content-type")).toMatch(/^application\/json/);

    const sse = await chat("formats", "hi", { accept: "text/event-stream" });
    expect(sse.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const { events } = parseEvents(await sse.text());
    expect(events.map((e) => e.event)).toEqual(expect.arrayContaining(["start", "delta", "done"]));
  });

  it("refuses a missing or oversized q with 400, an unknown agent with 404, POST with 405", async () => {
    await createAgent("checks");
    const missing = await fetch(`${server.url}/checks/chat`);
    expect(missing.status).toBe(400);
    expect(missing.headers.get("content-type")).toBe("application/problem+json");
    expect((await missing.json()).errors).toEqual([
      { field: "q", detail: expect.stringContaining("is required") },
    ]);

    expect((await chat("checks", "x".repeat(10_001))).status).toBe(400);
    expect((await chat("checks", "x".repeat(10_000))).status).toBe(200);

    const unknown = await chat("nobody-here", "hi");
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({
      code: "agent_not_found",
      detail: "Agent 'nobody-here' not found.",
    });

    const post = await fetch(`${server.url}/checks/chat?q=hi`, { method: "POST" });
    expect(post.status).toBe(405);
  });

  it("100 parallel chats against a daily limit of 10: exactly ten 200s and ninety 429s", async () => {
    await createAgent("crowd", { message_limit_daily: 10 });
    const secondsToMidnight = () =>
      (Date.UTC(
        new Date().getUTCFullYear(),
        new Date().getUTCMonth(),
        new Date().getUTCDate() + 1,
      ) -
        Date.now()) /
      1000;
    const before = secondsToMidnight();
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) => chat("crowd", `hello ${i}`)),
    );
    const after = secondsToMidnight();
    const statuses = responses.map((r) => r.status);
    const others = responses.filter((r) => r.status !== 200 && r.status !== 429);
    // Anything else is shown with the server's log lines of its request, to say why.
    const explained = async (r: Response) => {
      const text = await r.clone().text();
      const id = r.headers.get("x-request-id") ?? "(none)";
      const log = server
        .output()
        .split("\n")
        .filter((line) => line.includes(id));
      return [`${r.status} ${text}`, ...log].join("\n");
    };
    expect(await Promise.all(others.map(explained))).toEqual([]);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(90);

    const refused = responses.find((r) => r.status === 429) as Response;
    // Seconds to midnight when it was refused: between those before and after the requests.
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(Math.floor(after) - 1);
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil(before) + 1);
    const bodies = await Promise.all(responses.map((r) => r.text()));
    const refusal = JSON.parse(bodies[statuses.indexOf(429)] as string);
    expect(refusal.detail).toMatch(/^Daily message limit reached for agent 'crowd'/);

    expect(await messageCount("crowd")).toBe(10);
  });

  it("answers HEAD without calling the model, counting or storing anything", async () => {
    await createAgent("headed");
    const asked = fake.requests.length;
    const head = await fetch(`${server.url}/headed/chat?q=hello`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await head.text()).toBe("");
    const json = await fetch(`${server.url}/headed/chat?q=hello`, {
      method: "HEAD",
      headers: { accept: "application/json" },
    });
    expect(json.headers.get("content-type")).toBe("application/json");
    expect((await fetch(`${server.url}/ghost/chat?q=hi`, { method: "HEAD" })).status).toBe(404);
    expect((await fetch(`${server.url}/headed/chat`, { method: "HEAD" })).status).toBe(400);
    expect(fake.requests.length).toBe(asked);
    expect(await messageCount("headed")).toBe(0);
    const threads = await fetch(
      `${server.url}/api/trpc/threads.list?input=${encodeURIComponent(JSON.stringify({ aid: "headed" }))}`,
      { headers: admin },
    );
    expect((await threads.json()).result.data.threads).toEqual([]);
  });

  it("maps provider failure to 502 and a timeout to 504, and counts neither", async () => {
    await createAgent("fragile");
    fake.behave({ kind: "error", status: 500 });
    const failed = await chat("fragile", "hi");
    expect(failed.status).toBe(502);
    expect(await failed.json()).toMatchObject({ code: "provider_error" });

    fake.behave({ kind: "hang" });
    const slow = await chat("fragile", "hi");
    expect(slow.status).toBe(504);
    expect(await slow.json()).toMatchObject({ code: "provider_timeout" });

    expect(await messageCount("fragile")).toBe(0);
  });

  it("streams the reply chunk by chunk, and the chunks make the whole reply", async () => {
    await createAgent("stream");
    fake.behave({
      kind: "reply",
      text: "One, two, three, four, five.",
      chunks: 5,
      chunkDelayMs: 40,
    });
    const response = await chat("stream", "count", { accept: "text/event-stream" });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    let reads = 0;
    const deltas: string[] = [];
    let done: { reply?: string } | undefined;
    for (;;) {
      const { value, done: finished } = await reader.read();
      if (finished) break;
      reads++;
      const parsed = parseEvents(buffer + decoder.decode(value, { stream: true }));
      buffer = parsed.rest;
      for (const { event, data } of parsed.events) {
        if (event === "delta") deltas.push((data as { text: string }).text);
        if (event === "done") done = data as { reply: string };
      }
    }
    expect(reads).toBeGreaterThan(2);
    expect(deltas.length).toBeGreaterThanOrEqual(5);
    expect(deltas.join("")).toBe("One, two, three, four, five.");
    expect(done?.reply).toBe(deltas.join(""));
  });

  it("sends a failure mid-stream as an error event and gives the quota back", async () => {
    await createAgent("midway");
    fake.behave({ kind: "stall", text: "partial answer" });
    const response = await chat("midway", "hi", { accept: "text/event-stream" });
    expect(response.status).toBe(200);
    const { events } = parseEvents(await response.text());
    expect(events.at(-1)).toMatchObject({
      event: "error",
      data: { status: 504, code: "provider_timeout" },
    });
    expect(await messageCount("midway")).toBe(0);
  });

  it("gives the quota back when the client leaves mid-stream and does not resume it", async () => {
    await createAgent("leaver");
    fake.behave({ kind: "stall", text: "partial answer" });
    const response = await chat("leaver", "hi", { accept: "text/event-stream" });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read(); // the start event: the quota is taken
    expect(await messageCount("leaver")).toBe(1);
    await reader.cancel(); // the client goes away, and is not back within CHAT_RESUME_S
    let count = 1;
    for (let i = 0; i < 50 && count !== 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      count = await messageCount("leaver");
    }
    expect(count).toBe(0);
  });
});
