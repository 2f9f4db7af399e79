import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../helpers/database-kinds";
import type { FakeOpenAi } from "../helpers/fake-openai";
import { type ModelServer, startModelServer } from "../helpers/model-server";
import { type RunningServer, TEST_ADMIN_KEY } from "../helpers/server";

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The dashboard streams chat replies through `chat.stream` over /api/trpc (httpBatchStreamLink),
 * not the REST path. A browser that goes away mid-reply must free the model slot and give the
 * undelivered message back there too. One model slot, so a slot that stays taken shows as a 503.
 */
describe.each(DATABASE_KINDS)("chat.stream over /api/trpc, abandoned mid-reply, on %s", (kind) => {
  let server: RunningServer;
  let fake: FakeOpenAi;
  let running: ModelServer | undefined;

  beforeAll(async () => {
    // One process, so that "the one slot is free again" is about the slot the stream held.
    running = await startModelServer(kind, {
      LLM_MAX_CONCURRENCY: "1",
      WEB_CONCURRENCY: "1",
      SCHEDULER: "off",
    });
    ({ server, fake } = running);
    const created = await fetch(`${server.url}/agents`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ aid: "dash" }),
    });
    expect(created.status).toBe(201);
  });
  afterAll(() => running?.stop());

  const counted = async (): Promise<number> =>
    (await (await fetch(`${server.url}/agents?q=dash`, { headers: admin })).json()).agents[0].quota
      .message_count_total;

  it("frees the slot and gives the message back when the browser leaves", async () => {
    // A slow reply: 100 tokens over 2 s, so the reader leaves mid-stream.
    fake.behave({ kind: "tokens", tokens: 100, writes: 20, latencyMs: 2000 });
    const controller = new AbortController();
    const response = await fetch(`${server.url}/api/trpc/chat.stream?batch=1`, {
      method: "POST",
      headers: { ...admin, "trpc-accept": "application/jsonl" },
      body: JSON.stringify({ 0: { aid: "dash", q: "hello", chat_id: "tab" } }),
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body?.getReader();
    let received = "";
    const decoder = new TextDecoder();
    // Read until a delta has arrived, then leave like a closed tab.
    while (!received.includes('"delta"')) {
      const chunk = await reader?.read();
      if (!chunk || chunk.done) break;
      received += decoder.decode(chunk.value, { stream: true });
    }
    expect(received).toContain('"delta"');
    controller.abort();

    // The upstream call is closed, the message given back, nothing stored.
    for (let waited = 0; waited < 3000 && (fake.inFlight() > 0 || (await counted()) > 0); ) {
      await sleep(100);
      waited += 100;
    }
    expect(fake.inFlight()).toBe(0);
    expect(await counted()).toBe(0);

    // The one slot is free again: a normal chat is answered.
    fake.behave({ kind: "reply", text: "Back." });
    const after = await fetch(`${server.url}/dash/chat?q=again`);
    expect(after.status).toBe(200);
    expect(await after.text()).toBe("Back.");
    expect(await counted()).toBe(1);
  });
});
