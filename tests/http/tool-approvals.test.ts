import { type Message, Role, type Task, TaskState } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startMcpServer, type TestMcpServer } from "../helpers/mcp-server";
import { type ModelServer, startModelServer, startOtherInstance } from "../helpers/model-server";
import { type RunningServer, sendAsAdmin, TEST_ADMIN_KEY } from "../helpers/server";

type Approval = { id: string; server: string; tool: string; arguments: unknown };

/**
 * Issue #48, item 5, as clients meet it: two instances on one PostgreSQL database, an agent whose
 * `add` tool waits for a person. A chat paused on one instance is listed and decided on the
 * other, through every way in; two deciders of one turn resume it once; callers who may not
 * decide are refused in problem+json.
 */
describe("tool approvals across instances on postgres", () => {
  let running: ModelServer | undefined;
  let one: RunningServer;
  let two: RunningServer;
  let mcp: TestMcpServer;
  let key = "";

  beforeAll(async () => {
    mcp = await startMcpServer();
    const env = {
      LLM_MAX_RETRIES: "0",
      SCHEDULER: "off",
      WEB_CONCURRENCY: "1",
      MCP_ALLOWED_HOSTS: new URL(mcp.url).host,
    };
    running = await startModelServer("postgres", env);
    one = running.server;
    two = (await startOtherInstance(running, env)) as RunningServer;
    const created = await sendAsAdmin(one, "POST", "/agents", {
      aid: "payer",
      chat_access: "key",
      rate_limit_rpm: null,
      mcp_servers: [{ name: "calc", url: mcp.url, approval_required_tools: ["add"] }],
    });
    expect(created.status).toBe(201);
    expect(created.json.mcp_servers[0].approval_required_tools).toEqual(["add"]);
    key = (await sendAsAdmin(one, "POST", "/agents/payer/keys", { name: "app" })).json.key;
  });
  afterAll(async () => {
    await two?.stop();
    await running?.stop();
    await mcp?.close();
  });
  beforeEach(() => {
    mcp.calls.splice(0);
  });

  const withKey = () => ({ authorization: `Bearer ${key}` });
  const askFor = (...calls: { a: number; b: number }[]) =>
    running?.fake.behave(
      {
        kind: "tools",
        calls: calls.map((args, i) => ({ name: "add", arguments: args, id: `c${i + 1}` })),
      },
      { kind: "reply", text: "Added." },
    );
  const chat = async (server: RunningServer, q: string) => {
    const answer = await fetch(`${server.url}/payer/chat?q=${encodeURIComponent(q)}`, {
      headers: { accept: "application/json", ...withKey() },
    });
    expect(answer.status).toBe(200);
    return (await answer.json()) as { status: string; approvals: Approval[]; chat_id: string };
  };
  const decide = (
    server: RunningServer,
    id: string,
    body: Record<string, unknown>,
    auth: Record<string, string> = withKey(),
  ) =>
    fetch(`${server.url}/agents/payer/approvals/${id}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...auth },
      body: JSON.stringify(body),
    });
  const counted = async () =>
    (await sendAsAdmin(one, "GET", "/agents/payer")).json.quota.message_count_total as number;

  it("pauses on one instance, is listed and approved on the other, and is counted once", async () => {
    askFor({ a: 2, b: 3 });
    const before = await counted();
    const paused = await chat(one, "2+3?");
    expect(paused).toMatchObject({
      status: "requires_approval",
      approvals: [{ server: "calc", tool: "add", arguments: { a: 2, b: 3 } }],
    });
    const id = paused.approvals[0]?.id as string;
    const listed = await fetch(`${two.url}/agents/payer/approvals`, { headers: withKey() });
    expect(listed.status).toBe(200);
    expect((await listed.json()).approvals).toMatchObject([{ id, tool: "add", via: "chat" }]);

    const decided = await decide(two, id, { decision: "approve" });
    expect(decided.status).toBe(200);
    expect(await decided.json()).toMatchObject({
      id,
      decision: "approve",
      status: "completed",
      reply: { reply: "Added.", status: "completed", tool_calls: [{ name: "add", result: "5" }] },
    });
    expect(mcp.calls).toEqual([{ name: "add", arguments: { a: 2, b: 3 } }]);
    expect(await counted()).toBe(before + 1);
    // Decided: again, on either instance, finds nothing waiting.
    const again = await decide(one, id, { decision: "deny" });
    expect(again.status).toBe(404);
    expect(again.headers.get("content-type")).toMatch(/application\/problem\+json/);
  });

  it("resumes a turn once when its two calls are decided at once on both instances", async () => {
    askFor({ a: 1, b: 1 }, { a: 2, b: 2 });
    const before = await counted();
    const paused = await chat(one, "two sums");
    expect(paused.approvals).toHaveLength(2);
    const [first, second] = paused.approvals as [Approval, Approval];
    const answers = await Promise.all([
      decide(one, first.id, { decision: "approve" }),
      decide(two, second.id, { decision: "approve" }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    const statuses = (await Promise.all(answers.map((a) => a.json()))).map((b) => b.status).sort();
    expect(statuses).toEqual(["completed", "waiting"]);
    expect(mcp.calls).toHaveLength(2);
    expect(await counted()).toBe(before + 1);
  });

  it("takes one of 40 racing decisions of one call across both instances", async () => {
    askFor({ a: 5, b: 5 });
    const paused = await chat(two, "race");
    const id = paused.approvals[0]?.id as string;
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        decide(i % 2 ? one : two, id, { decision: i % 3 ? "approve" : "deny" }),
      ),
    );
    const codes = answers.map((a) => a.status);
    expect(codes.filter((code) => code === 200)).toHaveLength(1);
    // The rest: already decided (409), or gone once the turn ended (404).
    expect(codes.every((code) => [200, 404, 409].includes(code))).toBe(true);
    expect(mcp.calls.length).toBeLessThanOrEqual(1);
  });

  it("shows the waiting calls on the OpenAI paths and in a stream", async () => {
    const openai = new OpenAI({ baseURL: `${one.url}/v1`, apiKey: key, maxRetries: 0 });
    askFor({ a: 3, b: 4 });
    const completion = await openai.chat.completions.create({
      model: "payer",
      messages: [{ role: "user", content: "3+4?" }],
    });
    const waiting = (completion as unknown as { approvals: Approval[] }).approvals;
    expect(waiting).toMatchObject([{ tool: "add", arguments: { a: 3, b: 4 } }]);

    askFor({ a: 6, b: 7 });
    const response = await openai.responses.create({ model: "payer", input: "6+7?" });
    expect(response.output.at(-1)).toMatchObject({
      type: "mcp_approval_request",
      server_label: "calc",
      name: "add",
      arguments: JSON.stringify({ a: 6, b: 7 }),
    });

    askFor({ a: 8, b: 9 });
    const stream = await fetch(`${two.url}/payer/chat?q=8%2B9`, {
      headers: { accept: "text/event-stream", ...withKey() },
    });
    const text = await stream.text();
    const done = text.split("\n\n").find((frame) => frame.includes("event: done")) ?? "";
    const data = JSON.parse(done.slice(done.indexOf("data: ") + 6));
    expect(data).toMatchObject({ status: "requires_approval", approvals: [{ tool: "add" }] });

    askFor({ a: 1, b: 2 });
    const plain = await fetch(`${one.url}/payer/chat?q=1%2B2`, { headers: withKey() });
    expect(await plain.text()).toMatch(/waiting for a person to approve its call of 'add'/);

    // All four wait, listed to the key that asked; each denied from the other instance.
    const listed = (
      await (await fetch(`${two.url}/agents/payer/approvals`, { headers: withKey() })).json()
    ).approvals as Approval[];
    expect(listed).toHaveLength(4);
    for (const approval of listed) {
      const denied = await decide(two, approval.id, { decision: "deny", reason: "Not today." });
      expect((await denied.json()).status).toBe("completed");
    }
    expect(mcp.calls).toEqual([]);
    expect(running?.fake.requests.at(-1)?.messages.at(-1)).toMatchObject({
      role: "tool",
      content: "Error: Not called: the call was denied. The approver's reason: Not today.",
    });
  });

  it("shows the waiting calls to the MCP SDK's client and as an A2A input-required task", async () => {
    askFor({ a: 10, b: 1 });
    const mcpClient = new Client({ name: "test-client", version: "1.0.0" });
    await mcpClient.connect(
      new StreamableHTTPClientTransport(new URL(`${two.url}/payer/mcp`), {
        requestInit: { headers: withKey() },
      }),
    );
    const result = await mcpClient.callTool({ name: "chat", arguments: { message: "10+1?" } });
    await mcpClient.close();
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      status: "requires_approval",
      approvals: [{ tool: "add", arguments: { a: 10, b: 1 } }],
    });
    expect(JSON.stringify(result.content)).toMatch(
      /waiting for a person to approve its call of 'add'/,
    );

    askFor({ a: 20, b: 2 });
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("authorization", `Bearer ${key}`);
      return fetch(input, { ...init, headers });
    };
    const a2a = await new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl })],
      }),
    ).createFromUrl(one.url, "/payer/.well-known/agent-card.json");
    const message: Message = {
      messageId: crypto.randomUUID(),
      role: Role.ROLE_USER,
      parts: [
        {
          content: { $case: "text", value: "20+2?" },
          metadata: {},
          filename: "",
          mediaType: "text/plain",
        },
      ],
      taskId: "",
      contextId: "",
      extensions: [],
      metadata: {},
      referenceTaskIds: [],
    };
    const task = (await a2a.sendMessage({
      tenant: "",
      message,
      configuration: undefined,
      metadata: {},
    })) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const said = (task.status?.message?.parts ?? [])
      .map((part) => (part.content?.$case === "text" ? part.content.value : ""))
      .join("");
    expect(said).toMatch(/approve its call of 'add' \(approval [0-9a-f-]{36}\)/);

    // Both decided by the admin, from the other instances: the turns complete.
    const listed = (await sendAsAdmin(one, "GET", "/agents/payer/approvals")).json
      .approvals as Approval[];
    expect(listed).toHaveLength(2);
    for (const approval of listed) {
      const decided = await sendAsAdmin(two, "POST", `/agents/payer/approvals/${approval.id}`, {
        decision: "approve",
      });
      expect(decided.json.status).toBe("completed");
    }
    expect(mcp.calls).toHaveLength(2);
  });

  it("refuses callers who may not decide, in problem+json", async () => {
    askFor({ a: 1, b: 1 });
    const paused = await chat(one, "guarded");
    const id = paused.approvals[0]?.id as string;
    const other = (await sendAsAdmin(one, "POST", "/agents/payer/keys", { name: "other" })).json
      .key as string;
    const cases: [Record<string, string>, string, Record<string, unknown>, number][] = [
      [{ authorization: `Bearer ${other}` }, id, { decision: "approve" }, 404],
      [{}, id, { decision: "approve" }, 401],
      [withKey(), "not-a-uuid", { decision: "approve" }, 400],
      [withKey(), id, { decision: "maybe" }, 400],
      [withKey(), id, { decision: "deny", reason: "x".repeat(1001) }, 400],
      [withKey(), id, { decision: "approve", extra: 1 }, 400],
    ];
    for (const [auth, approval, body, status] of cases) {
      const answer = await decide(one, approval, body, auth);
      expect(answer.status, JSON.stringify(body)).toBe(status);
      expect(answer.headers.get("content-type")).toMatch(/application\/problem\+json/);
      expect((await answer.json()).detail).toMatch(/\w+/);
    }
    const otherList = await fetch(`${one.url}/agents/payer/approvals`, {
      headers: { authorization: `Bearer ${other}` },
    });
    expect((await otherList.json()).approvals).toEqual([]);
    // The admin sees and decides any.
    const adminDecides = await decide(
      two,
      id,
      { decision: "deny" },
      {
        authorization: `Bearer ${TEST_ADMIN_KEY}`,
      },
    );
    expect((await adminDecides.json()).status).toBe("completed");
  });
});
