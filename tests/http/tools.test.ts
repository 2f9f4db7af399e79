import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../helpers/databases";
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
      // Loopback only: the test's MCP server is there, and everything else is refused.
      MCP_ALLOWED_HOSTS: "127.0.0.1",
      MCP_TEST_HEADER: "from-the-environment",
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
    "http://127.0.0.1.nip.io/mcp",
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

  it("frees the slot and the message when the client leaves during a tool call", async () => {
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
    // The call is cancelled at the MCP server, the slot freed, the message given back.
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
