import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeOpenAi, startFakeOpenAi } from "../helpers/fake-openai";
import { type ModelServer, startModelServer, startOtherInstance } from "../helpers/model-server";
import { type RunningServer, sendAsAdmin, TEST_ADMIN_KEY } from "../helpers/server";

const ENV = {
  LLM_MAX_RETRIES: "0",
  SCHEDULER: "off",
  WEB_CONCURRENCY: "1",
  MODEL_ALLOWED_HOSTS: "127.0.0.1",
  MODEL_CIRCUIT_FAILURES: "3",
};

/**
 * Issue #48, item 4, as clients and operators meet it: two instances on one PostgreSQL database,
 * an agent whose first endpoint fails or hangs. The official `openai` client's completions and
 * streams succeed through the second endpoint; once the first has failed three times on one
 * instance, neither instance calls it again (its circuit is in the database).
 */
describe("model endpoints across instances on postgres", () => {
  let running: ModelServer | undefined;
  let one: RunningServer;
  let two: RunningServer;
  let down: FakeOpenAi;

  beforeAll(async () => {
    down = await startFakeOpenAi();
    running = await startModelServer("postgres", ENV);
    one = running.server;
    two = (await startOtherInstance(running, ENV)) as RunningServer;
  });
  afterAll(async () => {
    await two?.stop();
    await running?.stop();
    await down?.close();
  });
  beforeEach(() => {
    down.requests.splice(0);
    running?.fake.behave({ kind: "reply", text: "from the second endpoint" });
  });

  const openai = (server: RunningServer) =>
    new OpenAI({ baseURL: `${server.url}/v1`, apiKey: TEST_ADMIN_KEY, maxRetries: 0 });
  const agent = (aid: string, first: Record<string, unknown> = {}) =>
    sendAsAdmin(one, "POST", "/agents", {
      aid,
      model_endpoints: [
        { name: "first", base_url: down.baseUrl, model: "model-down", ...first },
        { name: "second", base_url: running?.fake.baseUrl, model: "model-up" },
      ],
    });

  it("answers through the second endpoint, and the first's circuit opens for both instances", async () => {
    expect((await agent("fallback")).status).toBe(201);
    down.behave({ kind: "error", status: 500 });
    for (const _ of [1, 2, 3]) {
      const completion = await openai(one).chat.completions.create({
        model: "fallback",
        messages: [{ role: "user", content: "hello" }],
      });
      // OpenAI's shape names the agent asked for; the request log, the endpoint and its model.
      expect(completion.model).toBe("fallback");
      expect(completion.choices[0]?.message.content).toBe("from the second endpoint");
    }
    expect(down.requests).toHaveLength(3);

    // The other instance reads the open circuit: it never calls the first endpoint.
    for (const _ of [1, 2, 3, 4]) {
      const stream = await openai(two).chat.completions.create({
        model: "fallback",
        messages: [{ role: "user", content: "hello again" }],
        stream: true,
      });
      let text = "";
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
      expect(text).toBe("from the second endpoint");
    }
    expect(down.requests).toHaveLength(3);
    const metrics = await (
      await fetch(`${two.url}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` } })
    ).text();
    expect(metrics).toMatch(
      /agent_model_endpoint_attempts_total\{endpoint="first",outcome="skipped"[^}]*\} 4/,
    );

    // Each instance writes its request log within a second.
    const logged = async () =>
      (await sendAsAdmin(two, "GET", "/requests?aid=fallback")).json.requests as {
        endpoint: string;
        model: string;
      }[];
    await expect.poll(async () => (await logged()).length).toBe(7);
    expect((await logged()).every((e) => e.endpoint === "second" && e.model === "model-up")).toBe(
      true,
    );
  });

  it("moves on from an endpoint that hangs, within its timeout_ms", async () => {
    // Another model: the circuit of the first test's stays open.
    expect((await agent("hanging", { model: "model-hangs", timeout_ms: 400 })).status).toBe(201);
    down.behave({ kind: "hang" });
    const answer = await fetch(`${two.url}/hanging/chat?q=hi`, {
      headers: { accept: "application/json", authorization: `Bearer ${TEST_ADMIN_KEY}` },
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ endpoint: "second", model: "model-up" });
    expect(down.requests).toHaveLength(1);
    // The hanging request was given up, not left open at the endpoint.
    await expect.poll(() => down.inFlight()).toBe(0);
  });
});
