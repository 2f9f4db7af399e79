import { type Message, Role, type Task, TaskState, taskStateToJSON } from "@a2a-js/sdk";
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
} from "@a2a-js/sdk/client";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { adminApi, adminHeaders } from "../helpers/admin-api";
import { createThrowawayPostgres, DATABASE_KINDS } from "../helpers/database-kinds";
import type { FakeOpenAi } from "../helpers/fake-openai";
import { type ModelServer, startModelServer } from "../helpers/model-server";
import { type RunningServer, startServer } from "../helpers/server";

/**
 * Agents as A2A 1.0 servers (their card, and POST /{aid}/a2a), called by `@a2a-js/sdk`'s own
 * client from the card's URL, against the built service, its model a fake OpenAI endpoint.
 */

const admin = adminHeaders;
const REPLY = "Hello from the fake model.";

/** A client of `base`'s agent `aid`, found from its card, sending `key` as a bearer token. */
async function connect(base: string, aid: string, key?: string): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    if (key) headers.set("authorization", `Bearer ${key}`);
    return fetch(input, { ...init, headers });
  };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
    }),
  );
  return factory.createFromUrl(base, `/${aid}/.well-known/agent-card.json`);
}

const message = (text: string, contextId = ""): Message => ({
  messageId: crypto.randomUUID(),
  role: Role.ROLE_USER,
  parts: [
    {
      content: { $case: "text", value: text },
      metadata: {},
      filename: "",
      mediaType: "text/plain",
    },
  ],
  taskId: "",
  contextId,
  extensions: [],
  metadata: {},
  referenceTaskIds: [],
});
const send = (text: string, contextId = "") => ({
  tenant: "",
  message: message(text, contextId),
  configuration: undefined,
  metadata: {},
});

const stateOf = (task: Task) =>
  taskStateToJSON(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED);
const textOf = (task: Task) =>
  task.artifacts
    .flatMap((artifact) => artifact.parts)
    .map((part) => (part.content?.$case === "text" ? part.content.value : ""))
    .join("");
const statusText = (task: Task) =>
  (task.status?.message?.parts ?? [])
    .map((part) => (part.content?.$case === "text" ? part.content.value : ""))
    .join("");

async function sent(client: Client, text: string, contextId = ""): Promise<Task> {
  const result = await client.sendMessage(send(text, contextId));
  expect(result).toHaveProperty("status");
  return result as Task;
}

describe.each(DATABASE_KINDS)("agents as A2A servers on %s", (kind) => {
  let running: ModelServer | undefined;
  let server: RunningServer;
  let fake: FakeOpenAi;

  beforeAll(async () => {
    running = await startModelServer(kind, {
      LLM_MAX_RETRIES: "0",
      LLM_TIMEOUT_MS: "10000",
      LLM_MAX_CONCURRENCY: "300",
      SCHEDULER: "off",
    });
    ({ server, fake } = running);
  });
  afterAll(() => running?.stop());
  beforeEach(() => {
    fake.requests.splice(0);
    fake.behave({ kind: "reply", text: REPLY });
  });

  const { post, createAgent, keyOf, agent } = adminApi(() => server.url, "a2a");

  it("serves a card naming the agent, its JSON-RPC interface and its bearer scheme", async () => {
    await createAgent({ aid: "carded", name: "Order helper" });
    await createAgent({ aid: "carded-keyed", chat_access: "key" });
    const card = await (await fetch(`${server.url}/carded/.well-known/agent-card.json`)).json();
    expect(card).toMatchObject({
      name: "Order helper",
      supportedInterfaces: [
        {
          url: expect.stringMatching(/\/carded\/a2a$/),
          protocolBinding: "JSONRPC",
          protocolVersion: "1.0",
        },
      ],
      capabilities: { streaming: true },
      securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } } },
      skills: [{ id: "chat" }],
    });
    expect(card.securityRequirements ?? []).toEqual([]);
    const keyed = await (
      await fetch(`${server.url}/carded-keyed/.well-known/agent-card.json`)
    ).json();
    expect(keyed.securityRequirements).toEqual([{ schemes: { bearer: {} } }]);
    expect((await fetch(`${server.url}/nobody/.well-known/agent-card.json`)).status).toBe(404);
  });

  it("answers a message with a completed task, continues its context, and gets it back", async () => {
    await createAgent({ aid: "helper" });
    const client = await connect(server.url, "helper");
    const first = await sent(client, "Where is my order?", "ticket-7");
    expect(stateOf(first)).toBe("TASK_STATE_COMPLETED");
    expect(textOf(first)).toBe(REPLY);
    expect(first.contextId).toBe("ticket-7");
    await sent(client, "And now?", "ticket-7");
    const last = fake.requests.at(-1) as { messages: { content: string }[] };
    expect(last.messages.map((m) => m.content)).toContain("Where is my order?");
    const read = await client.getTask({ tenant: "", id: first.id, historyLength: undefined });
    expect(stateOf(read)).toBe("TASK_STATE_COMPLETED");
    expect(textOf(read)).toBe(REPLY);
    expect((await agent("helper")).quota.message_count_total).toBe(2);
    await vi.waitFor(
      async () => {
        const logged = await (
          await fetch(`${server.url}/requests?aid=helper`, { headers: admin })
        ).json();
        expect(logged.requests.map((entry: { via: string }) => entry.via)).toEqual(["a2a", "a2a"]);
      },
      { timeout: 5000, interval: 250 },
    );
    // A task of another caller is not found.
    await createAgent({ aid: "helper-keyed", chat_access: "key" });
    const mine = await sent(
      await connect(server.url, "helper-keyed", await keyOf("helper-keyed")),
      "hi",
    );
    const theirs = await connect(server.url, "helper-keyed", await keyOf("helper-keyed"));
    await expect(
      theirs.getTask({ tenant: "", id: mine.id, historyLength: undefined }),
    ).rejects.toThrow(/not found/i);
  });

  it("streams the task, its reply in pieces, and its last status", async () => {
    await createAgent({ aid: "streamer" });
    fake.behave({ kind: "reply", text: "One, two, three.", chunks: 3, chunkDelayMs: 20 });
    const client = await connect(server.url, "streamer");
    const kinds: string[] = [];
    let taskId = "";
    let text = "";
    let final = "";
    for await (const event of client.sendMessageStream(send("Count."))) {
      const payload = event.payload;
      if (!payload) continue;
      kinds.push(payload.$case);
      if (payload.$case === "task") taskId = payload.value.id;
      if (payload.$case === "artifactUpdate") {
        const piece = (payload.value.artifact?.parts ?? [])
          .map((part) => (part.content?.$case === "text" ? part.content.value : ""))
          .join("");
        // Pieces are appended; the last replaces them with the whole reply.
        if (payload.value.append) text += piece;
        else if (payload.value.lastChunk) expect(piece).toBe(text);
        else text = piece;
      }
      if (payload.$case === "statusUpdate")
        final = taskStateToJSON(payload.value.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED);
    }
    expect(kinds[0]).toBe("task");
    expect(kinds.filter((k) => k === "artifactUpdate").length).toBeGreaterThan(2);
    expect(kinds.at(-1)).toBe("statusUpdate");
    expect(text).toBe("One, two, three.");
    expect(final).toBe("TASK_STATE_COMPLETED");
    // The task keeps the reply whole, as one text part.
    const kept = await client.getTask({ tenant: "", id: taskId, historyLength: undefined });
    expect(kept.artifacts).toHaveLength(1);
    expect(kept.artifacts[0]?.parts).toHaveLength(1);
    expect(textOf(kept)).toBe("One, two, three.");
  });

  it("takes an agent's keys as bearer tokens, and refuses a message without one", async () => {
    await createAgent({ aid: "keyed", chat_access: "key" });
    const key = await keyOf("keyed");
    expect(textOf(await sent(await connect(server.url, "keyed", key), "hi"))).toBe(REPLY);
    const anonymous = await connect(server.url, "keyed");
    await expect(anonymous.sendMessage(send("hi"))).rejects.toThrow();
    // Whatever the method: a message is refused by the chat's own check, the rest before.
    const hi = { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "hi" }] } };
    for (const [aid, method, params, status] of [
      ["keyed", "GetTask", { id: "x" }, 401],
      ["keyed", "SendMessage", hi, 401],
      ["keyed", "SendStreamingMessage", hi, 401],
      ["nobody", "SendMessage", hi, 404],
    ] as const) {
      const raw = await fetch(`${server.url}/${aid}/a2a`, {
        method: "POST",
        headers: { "content-type": "application/json", "a2a-version": "1.0" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      });
      expect(raw.status, `${aid} ${method}`).toBe(status);
      expect(raw.headers.get("content-type")).toBe("application/problem+json");
    }
  });

  it("rejects a message a limit refuses, and one not text, keeping no task of either", async () => {
    await createAgent({ aid: "limited", quota: { message_limit_total: 1 } });
    const client = await connect(server.url, "limited");
    expect(stateOf(await sent(client, "one"))).toBe("TASK_STATE_COMPLETED");
    const refused = await sent(client, "two");
    expect(stateOf(refused)).toBe("TASK_STATE_REJECTED");
    expect(statusText(refused)).toMatch(/Total message limit reached for agent 'limited'/);
    await post("/agents/limited/quota/reset", {}, 200);
    const tooLong = await sent(client, "x".repeat(10_001));
    expect(stateOf(tooLong)).toBe("TASK_STATE_REJECTED");
    expect(statusText(tooLong)).toMatch(/at most 10,000/);
    fake.behave({ kind: "error", status: 500 });
    const failed = await sent(client, "three");
    expect(stateOf(failed)).toBe("TASK_STATE_FAILED");
    expect(statusText(failed)).toMatch(/The model provider failed/);
    expect((await agent("limited")).quota.message_count_total).toBe(0);
    // A task refused before it began leaves nothing behind; one that began is kept.
    const get = (id: string) => client.getTask({ tenant: "", id, historyLength: undefined });
    for (const gone of [refused, tooLong]) await expect(get(gone.id)).rejects.toThrow(/not found/i);
    expect(stateOf(await get(failed.id))).toBe("TASK_STATE_FAILED");
  });

  it("answers JSON-RPC errors for an unknown method, a wrong version and an unknown task", async () => {
    await createAgent({ aid: "strict" });
    const rpc = (body: unknown, version = "1.0") =>
      fetch(`${server.url}/strict/a2a`, {
        method: "POST",
        headers: { "content-type": "application/json", "a2a-version": version },
        body: JSON.stringify(body),
      }).then(async (response) => ({ status: response.status, body: await response.json() }));
    const unknown = await rpc({ jsonrpc: "2.0", id: 1, method: "NoSuch", params: {} });
    expect(unknown.body.error.code).toBe(-32601);
    const old = await rpc({ jsonrpc: "2.0", id: 2, method: "GetTask", params: { id: "x" } }, "0.3");
    expect(old.body.error.message).toMatch(/A2A-Version '0.3' is not served/);
    const missing = await rpc({ jsonrpc: "2.0", id: 3, method: "GetTask", params: { id: "x" } });
    expect(missing.body.error.code).toBe(-32001);
    const cancelMissing = await rpc({
      jsonrpc: "2.0",
      id: 4,
      method: "CancelTask",
      params: { id: "x" },
    });
    expect(cancelMissing.body.error.code).toBe(-32001);
    for (const status of [unknown, old, missing]) expect(status.status).toBe(200);
  });

  it("completes exactly 50 of 200 concurrent messages against a total limit of 50", async () => {
    await createAgent({ aid: "contended", quota: { message_limit_total: 50 } });
    fake.behave({ kind: "reply", text: REPLY, delayMs: 20 });
    const client = await connect(server.url, "contended");
    const states = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => stateOf(await sent(client, `question ${i}`))),
    );
    const tally: Record<string, number> = {};
    for (const state of states) tally[state] = (tally[state] ?? 0) + 1;
    expect(tally).toEqual({ TASK_STATE_COMPLETED: 50, TASK_STATE_REJECTED: 150 });
    expect(fake.requests.length).toBe(50);
    expect((await agent("contended")).quota.message_count_total).toBe(50);
  });
});

describe.each(DATABASE_KINDS.filter((kind) => kind === "postgres"))(
  "an A2A cancel taken by another instance on %s",
  () => {
    let first: ModelServer | undefined;
    let second: RunningServer | undefined;
    let database: { url: string; drop(): Promise<void> } | undefined;

    beforeAll(async () => {
      database = await createThrowawayPostgres();
      const env = { DATABASE_URL: database.url, LLM_MAX_RETRIES: "0", SCHEDULER: "off" };
      first = await startModelServer("pglite", { ...env, LLM_TIMEOUT_MS: "30000" });
      second = await startServer({
        ...env,
        LLM_BASE_URL: first.fake.baseUrl,
        LLM_API_KEY: "sk-test",
      });
    });
    afterAll(async () => {
      await second?.stop();
      await first?.stop();
      await database?.drop();
    });

    it("stops the turn, gives its use back, and says cancelled on every instance", async () => {
      const { server, fake } = first as ModelServer;
      await fetch(`${server.url}/agents`, {
        method: "POST",
        headers: admin,
        body: JSON.stringify({ aid: "long" }),
      });
      fake.behave({ kind: "stall", text: "partial answer" });
      const here = await connect(server.url, "long");
      const there = await connect((second as RunningServer).url, "long");
      let taskId = "";
      let final = "";
      let cancelled = false;
      for await (const event of here.sendMessageStream(send("Take your time."))) {
        const payload = event.payload;
        if (payload?.$case === "task") taskId = payload.value.id;
        if (payload?.$case === "artifactUpdate" && !cancelled) {
          cancelled = true;
          const answer = await there.cancelTask({ tenant: "", id: taskId, metadata: {} });
          expect(stateOf(answer)).toBe("TASK_STATE_CANCELED");
        }
        if (payload?.$case === "statusUpdate")
          final = taskStateToJSON(payload.value.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED);
      }
      // Stopped by the cancel, not by the model's deadline (30 s), which would have failed it.
      expect(final).toBe("TASK_STATE_CANCELED");
      for (const client of [here, there])
        expect(
          stateOf(await client.getTask({ tenant: "", id: taskId, historyLength: undefined })),
        ).toBe("TASK_STATE_CANCELED");
      const counted = await (await fetch(`${server.url}/agents/long`, { headers: admin })).json();
      expect(counted.quota.message_count_total).toBe(0);
      // A finished task cannot be cancelled.
      fake.behave({ kind: "reply", text: REPLY });
      const done = await sent(here, "Quick one.");
      await expect(there.cancelTask({ tenant: "", id: done.id, metadata: {} })).rejects.toThrow(
        /not cancelable/i,
      );
    });
  },
);
