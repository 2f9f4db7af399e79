import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrokenMcpServer, startBrokenMcpServer } from "../helpers/broken-mcp";
import { DATABASE_KINDS } from "../helpers/database-kinds";
import type { FakeOpenAi } from "../helpers/fake-openai";
import { startMcpServer, type TestMcpServer } from "../helpers/mcp-server";
import { type ModelServer, startModelServer } from "../helpers/model-server";
import { type RunningServer, TEST_ADMIN_KEY } from "../helpers/server";

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };
const SECRET = "sk-live-0123456789-super-secret-token";

const until = async (condition: () => boolean | Promise<boolean>) => {
  for (let i = 0; i < 200; i++) {
    if (await condition()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
};

/**
 * Issue #17 over HTTP, on the built service: what callers see of tool calls (SSE events between
 * deltas, `tool_calls` in JSON, the final text alone in text/plain), the attacks on the new
 * surface (MCP URLs on internal hosts or of other schemes, secret headers read back), and a
 * client that leaves during a tool call.
 */
describe.each(DATABASE_KINDS)("tools over HTTP on %s", (kind) => {
  let server: RunningServer;
  let fake: FakeOpenAi;
  let mcp: TestMcpServer;
  let running: ModelServer | undefined;

  beforeAll(async () => {
    mcp = await startMcpServer();
    running = await startModelServer(kind, {
      LLM_MAX_RETRIES: "0",
      // The test's MCP server alone, on loopback: every other non-public host is refused.
      MCP_ALLOWED_HOSTS: new URL(mcp.url).host,
      MCP_TEST_HEADER: "from-the-environment",
      // A stream whose client left waits this long to be resumed, then is stopped.
      CHAT_RESUME_S: "1",
    });
    ({ server, fake } = running);
    const created = await post("/agents", {
      aid: "http-tools",
      mcp_servers: [
        {
          name: "calc",
          url: mcp.url,
          headers: { Authorization: `Bearer ${SECRET}`, "X-From-Env": { env: "MCP_TEST_HEADER" } },
          allowed_tools: ["add", "slow"],
        },
      ],
    });
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    await running?.stop();
    await mcp?.close();
  });

  const post = (path: string, body: unknown) =>
    fetch(`${server.url}${path}`, { method: "POST", headers: admin, body: JSON.stringify(body) });
  const chat = (q: string, accept: string) =>
    fetch(`${server.url}/http-tools/chat?q=${encodeURIComponent(q)}`, { headers: { accept } });
  const messageCount = async () =>
    (await (await fetch(`${server.url}/agents/http-tools`, { headers: admin })).json()).quota
      .message_count_total as number;

  const oneCall = () =>
    fake.behave(
      { kind: "tools", calls: [{ name: "add", arguments: { a: 40, b: 2 } }] },
      { kind: "reply", text: "It is 42.", chunks: 3 },
    );

  it("streams tool_call and tool_result between the deltas, and done carries tool_calls", async () => {
    oneCall();
    const response = await chat("40+2?", "text/event-stream");
    expect(response.status).toBe(200);
    const events = (await response.text())
      .split("\n\n")
      .filter(Boolean)
      .map((block) => ({
        event: /^event: (.*)$/m.exec(block)?.[1],
        data: JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? "null"),
      }));
    // Deltas, one per network read of the model's answer, come after the tool's result.
    expect(events.map((e) => e.event).join(" ")).toMatch(
      /^start tool_call tool_result (delta )+done$/,
    );
    expect(
      events
        .filter((e) => e.event === "delta")
        .map((e) => e.data.text)
        .join(""),
    ).toBe("It is 42.");
    expect(events[1]?.data).toEqual({
      id: "call_fake_1",
      step: 1,
      server: "calc",
      name: "add",
      arguments: { a: 40, b: 2 },
    });
    expect(events[2]?.data).toMatchObject({ result: "42", error: null });
    expect(events.at(-1)?.data).toMatchObject({
      reply: "It is 42.",
      tool_calls: [{ name: "add", result: "42" }],
    });
    // The secret and the environment's value reached the MCP server, and only it.
    expect(mcp.headers.at(-1)).toMatchObject({
      authorization: `Bearer ${SECRET}`,
      "x-from-env": "from-the-environment",
    });
  });

  it("lists tool_calls in JSON and gives only the final text as text/plain", async () => {
    oneCall();
    const json = await (await chat("40+2?", "application/json")).json();
    expect(json).toMatchObject({ reply: "It is 42.", tool_calls: [{ name: "add", result: "42" }] });
    oneCall();
    const plain = await chat("40+2?", "text/plain");
    expect(plain.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await plain.text()).toBe("It is 42.");
  });

  it("never shows a secret header back, wherever the agent is read", async () => {
    const reads = await Promise.all(
      ["/agents/http-tools", "/agents?q=http-tools", "/agents/http-tools/tools"].map((path) =>
        fetch(`${server.url}${path}`, { headers: admin }).then((r) => r.text()),
      ),
    );
    const saved = await (await post("/agents", { aid: "http-tools", name: "renamed" })).text();
    // A refusal names the field, not the value sent.
    const refused = await post("/agents", {
      aid: "http-tools",
      mcp_servers: [{ name: "calc", url: "ftp://127.0.0.1/", headers: { Authorization: SECRET } }],
    });
    expect(refused.status).toBe(400);
    for (const body of [...reads, saved, await refused.text()]) {
      expect(body).not.toContain(SECRET);
      expect(body).not.toContain(SECRET.slice(0, 12));
    }
    expect(JSON.parse(reads[0] as string).mcp_servers[0].headers).toEqual({
      Authorization: { secret: true, hint: "…oken" },
      "X-From-Env": { env: "MCP_TEST_HEADER" },
    });
    const tools = JSON.parse(reads[2] as string);
    expect(tools.servers[0]).toMatchObject({ name: "calc", status: "ok" });
  });

  it.each([
    "file:///etc/passwd",
    "javascript:alert(1)",
    "gopher://127.0.0.1:6379/_INFO",
    "http://169.254.169.254/latest/meta-data/",
    "http://localhost:5432/",
    "http://10.0.0.1/mcp",
    "http://[::1]/mcp",
    "http://[::ffff:a9fe:a9fe]/mcp",
    "http://2852039166/mcp",
    "http://user:pass@127.0.0.1/mcp",
  ])("refuses an MCP server at %s with 400", async (url) => {
    const response = await post("/agents", {
      aid: "attacker",
      mcp_servers: [{ name: "x", url }],
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toContain("application/problem+json");
    const problem = await response.json();
    expect(problem).toMatchObject({ code: "validation_failed" });
    expect(problem.errors[0].field).toBe("mcp_servers.0.url");
    expect(typeof problem.detail).toBe("string");
  });

  it("frees the slot and the message when the client leaves during a tool call for good", async () => {
    fake.behave({ kind: "tools", calls: [{ name: "slow", arguments: { ms: 30_000 } }] });
    const before = await messageCount();
    const cancelledBefore = mcp.cancelled;
    const port = Number(new URL(server.url).port);
    // A raw socket: closed as soon as the tool_call event has arrived.
    await new Promise<void>((resolve) => {
      const socket = connect({ port, host: "127.0.0.1" });
      let seen = "";
      socket.on("data", (chunk) => {
        seen += chunk;
        if (seen.includes("event: tool_call")) socket.destroy();
      });
      socket.on("error", () => {});
      socket.on("close", () => resolve());
      socket.write(
        `GET /http-tools/chat?q=wait HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n`,
      );
    });
    // Not resumed within CHAT_RESUME_S: the call is cancelled at the MCP server, the slot
    // freed, the message given back.
    expect(await until(() => mcp.cancelled > cancelledBefore)).toBe(true);
    expect(
      await until(async () => {
        const metrics = await (await fetch(`${server.url}/metrics`, { headers: admin })).text();
        return /^agent_model_slots_in_use 0$/m.test(metrics);
      }),
    ).toBe(true);
    expect(await until(async () => (await messageCount()) === before)).toBe(true);
    // And the service goes on: a normal chat with a tool works.
    oneCall();
    expect(await (await chat("40+2?", "text/plain")).text()).toBe("It is 42.");
  });
});

/** In every body the broken servers send; never in anything the service shows or stores. */
const MARKER = "internal-page-7f3a9c-do-not-echo";

/**
 * Issue #23 over HTTP, on the built service: a server that hangs, answers too much, answers a
 * JSON-RPC error, an HTML error page or anything else than MCP, or is not there, is described
 * the same way by the agent's tools page, the chat's stored tool call (what the model was told)
 * and the metric's outcome, and nothing of what it sent is shown. MCP_ALLOWED_HOSTS lists
 * loopback, where the servers are.
 */
describe.each(DATABASE_KINDS)("tool failures over HTTP on %s", (kind) => {
  let server: RunningServer;
  let fake: FakeOpenAi;
  let mcp: TestMcpServer;
  let broken: BrokenMcpServer;
  let goneUrl: string;
  let running: ModelServer | undefined;

  beforeAll(async () => {
    mcp = await startMcpServer();
    broken = await startBrokenMcpServer(MARKER);
    // Port 1: never an ephemeral port, so no server another test starts meanwhile can take it
    // (a closed server's port could be, and would answer where nothing should).
    goneUrl = "http://127.0.0.1:1/mcp";
    running = await startModelServer(kind, {
      LLM_MAX_RETRIES: "0",
      MCP_TOOL_TIMEOUT_MS: "1000",
      MCP_ALLOWED_HOSTS: "127.0.0.1",
    });
    ({ server, fake } = running);
  });
  afterAll(async () => {
    await running?.stop();
    await broken?.close();
    await mcp?.close();
  });

  const read = (path: string) => fetch(`${server.url}${path}`, { headers: admin });
  /** The tool calls' count of `outcome` in the metric. */
  const counted = async (outcome: string) => {
    const text = await (await read("/metrics")).text();
    const line = new RegExp(
      `^agent_tool_call_duration_seconds_count\\{outcome="${outcome}"\\} (\\d+)$`,
      "m",
    ).exec(text);
    return Number(line?.[1] ?? 0);
  };
  /** An agent with the one server, whose `tool` is offered even when the server cannot list it. */
  const agentWith = async (aid: string, name: string, url: string, tool = "add") => {
    const created = await fetch(`${server.url}/agents`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ aid, mcp_servers: [{ name, url, allowed_tools: [tool] }] }),
    });
    expect(created.status).toBe(201);
  };
  /** A chat (as the admin) in which the model calls `tool` once; its reply and stored tool call. */
  const chatCalling = async (aid: string, tool: string, args: object) => {
    fake.behave(
      { kind: "tools", calls: [{ name: tool, arguments: args }] },
      { kind: "reply", text: "The tool did not work." },
    );
    const chat = await fetch(`${server.url}/${aid}/chat?q=try&chat_id=t1`, {
      headers: { ...admin, accept: "application/json" },
    });
    const chatBody = await chat.text();
    expect(chat.status, chatBody).toBe(200);
    const messages = await (await read(`/agents/${aid}/threads/t1/messages`)).text();
    const stored = JSON.parse(messages).messages.at(-1).tool_calls;
    return { reply: JSON.parse(chatBody), stored, bodies: [chatBody, messages] };
  };

  const url = (path: string) => () => broken.url(path);
  it.each([
    {
      name: "hang",
      url: url("/hang"),
      outcome: "timeout",
      error: "MCP server 'hang' did not answer within 1000 ms.",
    },
    {
      name: "huge",
      url: url("/huge"),
      outcome: "refused",
      error: "MCP server 'huge' sent more than 4 MiB in one response, which was not read.",
    },
    {
      name: "rpc",
      url: url("/rpc-error"),
      outcome: "error",
      error: "MCP server 'rpc' answered with JSON-RPC error -32603 (internal error).",
    },
    {
      name: "page500",
      url: url("/error-500"),
      outcome: "unreachable",
      error: "MCP server 'page500' answered HTTP 500.",
    },
    {
      name: "page404",
      url: url("/error-404"),
      outcome: "unreachable",
      error: "MCP server 'page404' answered HTTP 404.",
    },
    {
      name: "html",
      url: url("/html"),
      outcome: "unreachable",
      error: "MCP server 'html' sent an answer that is not MCP.",
    },
    {
      name: "notjson",
      url: url("/not-json"),
      outcome: "unreachable",
      error: "MCP server 'notjson' sent an answer that is not MCP.",
    },
    {
      name: "gone",
      url: () => goneUrl,
      outcome: "unreachable",
      error: "MCP server 'gone' could not be reached.",
    },
  ])(
    "says the same of '$name' ($outcome) on the tools page, in the tool call and the metric, and shows nothing it sent",
    async (c) => {
      const aid = `failing-${c.name}`;
      await agentWith(aid, c.name, c.url());
      const listing = await (await read(`/agents/${aid}/tools`)).text();
      expect(JSON.parse(listing).servers).toEqual([
        { name: c.name, url: c.url(), status: c.outcome, error: c.error, tools: [] },
      ]);

      const before = await counted(c.outcome);
      const { reply, stored, bodies } = await chatCalling(aid, "add", { a: 1, b: 2 });
      expect(reply.reply).toBe("The tool did not work.");
      const call = { server: c.name, name: "add", result: null, error: c.error };
      expect(reply.tool_calls).toMatchObject([call]);
      expect(stored).toMatchObject([call]);
      expect(await counted(c.outcome)).toBe(before + 1);
      // What the model was told is what was stored.
      const told = JSON.stringify(fake.requests.at(-1)?.messages);
      expect(told).toContain(JSON.stringify(c.error).slice(1, -1));

      for (const body of [listing, ...bodies, told]) expect(body).not.toContain(MARKER);
    },
  );

  it("refuses a tool's answer over 4 MiB in an event stream at once, not at the timeout", async () => {
    await agentWith("failing-big", "calc", mcp.url, "big");
    const before = await counted("refused");
    const { stored } = await chatCalling("failing-big", "big", { chars: 5 * 1024 * 1024 });
    expect(stored).toMatchObject([
      {
        server: "calc",
        name: "big",
        result: null,
        error: "MCP server 'calc' sent more than 4 MiB in one response, which was not read.",
      },
    ]);
    expect(stored[0].duration_ms).toBeLessThan(1000);
    expect(await counted("refused")).toBe(before + 1);
    // The session that sent it is closed; the next call opens another, and works.
    fake.behave(
      { kind: "tools", calls: [{ name: "big", arguments: { chars: 3 } }] },
      { kind: "reply", text: "Three x's." },
    );
    const next = await fetch(`${server.url}/failing-big/chat?q=again`, {
      headers: { ...admin, accept: "application/json" },
    });
    expect((await next.json()).tool_calls).toMatchObject([{ result: "xxx", error: null }]);
  });
});
