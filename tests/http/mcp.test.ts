import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { adminApi, adminHeaders } from "../helpers/admin-api";
import { DATABASE_KINDS } from "../helpers/database-kinds";
import type { FakeOpenAi } from "../helpers/fake-openai";
import { type ModelServer, startModelServer } from "../helpers/model-server";
import type { RunningServer } from "../helpers/server";

/**
 * Agents as MCP servers (POST /{aid}/mcp), called by the MCP SDK's own client over Streamable
 * HTTP, against the built service, its model a fake OpenAI endpoint on loopback.
 */

const admin = adminHeaders;
const REPLY = "Hello from the fake model.";

describe.each(DATABASE_KINDS)("agents as MCP servers on %s", (kind) => {
  let running: ModelServer | undefined;
  let server: RunningServer;
  let fake: FakeOpenAi;

  beforeAll(async () => {
    running = await startModelServer(kind, {
      LLM_MAX_RETRIES: "0",
      LLM_TIMEOUT_MS: "5000",
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

  const { post, createAgent, keyOf, agent } = adminApi(() => server.url, "mcp");

  /** The MCP SDK's client, connected to the agent's server (with a key, as a bearer token). */
  const connect = async (aid: string, key?: string) => {
    const client = new Client({ name: "test-client", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/${aid}/mcp`), {
      requestInit: key ? { headers: { authorization: `Bearer ${key}` } } : {},
    });
    await client.connect(transport);
    return client;
  };
  const textOf = (result: unknown) =>
    ((result as CallToolResult).content[0] as { type: "text"; text: string }).text;

  it("names the agent, lists its chat tool, and answers a call with the reply", async () => {
    await createAgent({ aid: "helper", name: "Order helper" });
    const client = await connect("helper");
    try {
      expect(client.getServerVersion()).toMatchObject({ name: "agent-service/helper" });
      expect(client.getInstructions()).toMatch(/'Order helper' \(helper\)/);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(["chat"]);
      expect(tools[0]?.inputSchema.required).toEqual(["message"]);
      const result = await client.callTool({
        name: "chat",
        arguments: { message: "Where is my order?", thread_id: "ticket-7" },
      });
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toBe(REPLY);
      expect(result.structuredContent).toMatchObject({
        thread_id: "ticket-7",
        usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number) },
      });
      // The thread goes on: its history is sent with the next message.
      await client.callTool({
        name: "chat",
        arguments: { message: "And now?", thread_id: "ticket-7" },
      });
      const last = fake.requests.at(-1) as { messages: { content: string }[] };
      expect(last.messages.map((m) => m.content)).toContain("Where is my order?");
    } finally {
      await client.close();
    }
    const counted = await agent("helper");
    expect(counted.quota.message_count_total).toBe(2);
    // Logged as MCP chats (by whichever worker wrote them, within its second).
    await vi.waitFor(
      async () => {
        const logged = await (
          await fetch(`${server.url}/requests?aid=helper`, { headers: admin })
        ).json();
        expect(logged.requests.map((entry: { via: string }) => entry.via)).toEqual(["mcp", "mcp"]);
      },
      { timeout: 5000, interval: 250 },
    );
  });

  it("answers a refusal of the chat as the tool's error, with the chat's sentence", async () => {
    await createAgent({ aid: "limited", quota: { message_limit_total: 1 } });
    const client = await connect("limited");
    try {
      expect(
        (await client.callTool({ name: "chat", arguments: { message: "one" } })).isError,
      ).toBeFalsy();
      const refused = await client.callTool({ name: "chat", arguments: { message: "two" } });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/Total message limit reached for agent 'limited'/);
      fake.behave({ kind: "error", status: 500 });
      await post("/agents/limited/quota/reset", {}, 200);
      const failed = await client.callTool({ name: "chat", arguments: { message: "three" } });
      expect(failed.isError).toBe(true);
      expect(textOf(failed)).toMatch(/The model provider failed/);
    } finally {
      await client.close();
    }
    // The failed turn gave its use back.
    expect((await agent("limited")).quota.message_count_total).toBe(0);
  });

  it("takes the agent's keys as bearer tokens, and asks for one with WWW-Authenticate", async () => {
    await createAgent({ aid: "keyed", chat_access: "key" });
    const key = await keyOf("keyed");
    const client = await connect("keyed", key);
    try {
      const result = await client.callTool({ name: "chat", arguments: { message: "hi" } });
      expect(textOf(result)).toBe(REPLY);
    } finally {
      await client.close();
    }
    // Whatever the message: a tool call is refused by the chat's own check, the rest before.
    const call = { name: "chat", arguments: { message: "hi" } };
    for (const authorization of [undefined, "Bearer ak_wrong_key"])
      for (const [method, params] of [
        ["tools/list", {}],
        ["tools/call", call],
      ] as const) {
        const refused = await fetch(`${server.url}/keyed/mcp`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            ...(authorization ? { authorization } : {}),
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
        });
        expect(refused.status, `${method} with ${authorization}`).toBe(401);
        expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer /);
        expect(refused.headers.get("content-type")).toBe("application/problem+json");
      }
    await expect(connect("keyed")).rejects.toThrow();
  });

  it("answers a malformed message with a JSON-RPC error and an unknown agent with 404", async () => {
    await createAgent({ aid: "strict" });
    const send = (path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify(body),
      });
    const malformed = await send("/strict/mcp", { jsonrpc: "1.0", id: 1, method: "tools/list" });
    expect(malformed.status).toBe(400);
    const error = await malformed.json();
    expect(error.jsonrpc).toBe("2.0");
    // The SDK's transport answers a message that is not JSON-RPC as a parse error.
    expect([-32700, -32600]).toContain(error.error.code);
    const unknown = await send("/strict/mcp", { jsonrpc: "2.0", id: 2, method: "no/such" });
    expect((await unknown.json()).error.code).toBe(-32601);
    for (const method of ["tools/list", "tools/call"]) {
      const missing = await send("/nobody/mcp", {
        jsonrpc: "2.0",
        id: 3,
        method,
        params: { name: "chat", arguments: { message: "hi" } },
      });
      expect(missing.status).toBe(404);
      expect((await missing.json()).code).toBe("agent_not_found");
    }
    const get = await fetch(`${server.url}/strict/mcp`);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
  });

  it("counts exactly 50 of 200 concurrent tool calls against a total limit of 50", async () => {
    await createAgent({ aid: "contended", quota: { message_limit_total: 50 } });
    fake.behave({ kind: "reply", text: REPLY, delayMs: 20 });
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const client = await connect("contended");
        try {
          const result = await client.callTool({
            name: "chat",
            arguments: { message: `question ${i}`, thread_id: `t${i}` },
          });
          if (!result.isError) return "replied";
          expect(textOf(result)).toMatch(/Total message limit reached/);
          return "refused";
        } finally {
          await client.close();
        }
      }),
    );
    const tally: Record<string, number> = {};
    for (const outcome of outcomes) tally[outcome] = (tally[outcome] ?? 0) + 1;
    expect(tally).toEqual({ replied: 50, refused: 150 });
    expect(fake.requests.length).toBe(50);
    expect((await agent("contended")).quota.message_count_total).toBe(50);
  });
});
