import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { agents, chatMessages } from "@/db/schema";
import { fixedClock } from "@/server/kit/clock";
import { problemOf } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";
import { startMcpServer } from "../helpers/mcp-server";
import { useFakeOpenAi } from "../helpers/use-fake-openai";
import { useTools } from "../helpers/use-tools";

const SECRET = "Bearer sk-test-secret-0123456789abcdef";

/**
 * Issue #17: MCP servers as an agent's configuration (validated, secrets kept encrypted and never
 * shown), what the agent page lists, unreachable servers, capped results, and autonomous runs
 * with tools. Where servers may be: tools-outgoing.test.ts.
 */
describe.each(DATABASE_KINDS)("MCP servers of agents on %s", (kind) => {
  const clock = fixedClock("2026-11-21T20:00:00Z");
  const testDatabase = useTestDatabase(kind, { clock, start: "2026-11-21T20:00:00Z" });
  const fake = useFakeOpenAi("Hello from the fake model.");
  const { server, runtime, caller, agent } = useTools(testDatabase, fake, clock);

  it("keeps a secret header encrypted, never shows it, and sends it to the server", async () => {
    const saved = await agent("keeper", {
      mcp_servers: [{ name: "calc", url: server().url, headers: { Authorization: SECRET } }],
    });
    expect(saved.agent.mcp_servers).toEqual([
      {
        name: "calc",
        url: server().url,
        headers: { Authorization: { secret: true, hint: "…cdef" } },
        allowed_tools: null,
        approval_required_tools: [],
      },
    ]);
    const everywhere = JSON.stringify([
      saved,
      await caller().agents.get({ aid: "keeper" }),
      await caller().agents.list({}),
      await testDatabase().db.select().from(agents),
    ]);
    expect(everywhere).not.toContain("sk-test-secret");

    const model = runtime();
    fake().behave(
      { kind: "tools", calls: [{ name: "add", arguments: { a: 1, b: 2 } }] },
      { kind: "reply", text: "3" },
    );
    await caller(model).chat.send({ aid: "keeper", q: "1+2" });
    expect(server().headers.length).toBeGreaterThan(0);
    expect(server().headers.every((headers) => headers.authorization === SECRET)).toBe(true);

    // Sent back as shown, the secret is kept; to another origin, it must be given again.
    const kept = await caller().agents.upsert({
      aid: "keeper",
      mcp_servers: saved.agent.mcp_servers.map((s) => ({ ...s, url: `${s.url}?v=2` })),
    });
    expect(kept.agent.mcp_servers[0]?.headers).toEqual({
      Authorization: { secret: true, hint: "…cdef" },
    });
    const moved = await problemOf(
      caller().agents.upsert({
        aid: "keeper",
        mcp_servers: [
          {
            name: "calc",
            url: "http://localhost:9/mcp",
            headers: { Authorization: { secret: true } },
          },
        ],
      }),
    );
    expect(moved).toMatchObject({
      status: 400,
      errors: [
        {
          field: "mcp_servers.0.headers.Authorization",
          detail: "cannot keep its stored value for another origin; send the value again",
        },
      ],
    });
  });

  it("reads a header from an MCP_ environment variable and stores only its name", async () => {
    process.env.MCP_TEST_TOKEN = "token-from-the-environment";
    try {
      const saved = await agent("env-user", {
        mcp_servers: [
          { name: "calc", url: server().url, headers: { "X-Api-Key": { env: "MCP_TEST_TOKEN" } } },
        ],
      });
      expect(saved.agent.mcp_servers[0]?.headers).toEqual({
        "X-Api-Key": { env: "MCP_TEST_TOKEN" },
      });
      const tools = await caller(runtime()).tools.list({ aid: "env-user" });
      expect(tools.servers[0]?.status).toBe("ok");
      expect(server().headers.at(-1)?.["x-api-key"]).toBe("token-from-the-environment");
    } finally {
      delete process.env.MCP_TEST_TOKEN;
    }
    expect(
      await problemOf(
        agent("env-missing", {
          mcp_servers: [
            { name: "calc", url: server().url, headers: { "X-Api-Key": { env: "MCP_NOT_SET" } } },
          ],
        }),
      ),
    ).toMatchObject({ status: 400, errors: [{ field: "mcp_servers.0.headers.X-Api-Key" }] });
    // Only MCP_ variables: an agent cannot be made to send the service's own secrets.
    expect(
      await problemOf(
        agent("env-thief", {
          mcp_servers: [
            { name: "calc", url: server().url, headers: { "X-Key": { env: "LLM_API_KEY" } } },
          ],
        }),
      ),
    ).toMatchObject({ status: 400 });
  });

  it.each([
    ["a non-http URL", { name: "x", url: "file:///etc/passwd" }, "mcp_servers.0.url"],
    [
      "credentials in the URL",
      { name: "x", url: "http://user:pw@127.0.0.1/mcp" },
      "mcp_servers.0.url",
    ],
    ["a bad name", { name: "has space", url: "http://127.0.0.1/mcp" }, "mcp_servers.0.name"],
    [
      "a header the client sets itself",
      { name: "x", url: "http://127.0.0.1/mcp", headers: { "Mcp-Session-Id": "s" } },
      "mcp_servers.0.headers",
    ],
  ])("refuses %s with 400", async (_what, mcpServer, field) => {
    const problem = await problemOf(agent("invalid", { mcp_servers: [mcpServer] }));
    expect(problem).toMatchObject({ status: 400, code: "validation_failed" });
    expect(problem.errors?.[0]?.field).toContain(field);
  });

  it("refuses two servers of one name and a max_tool_steps over 20", async () => {
    const url = server().url;
    expect(
      await problemOf(
        agent("twice", {
          mcp_servers: [
            { name: "a", url },
            { name: "a", url },
          ],
        }),
      ),
    ).toMatchObject({ status: 400, errors: [{ field: "mcp_servers" }] });
    expect(await problemOf(agent("greedy", { max_tool_steps: 21 }))).toMatchObject({
      status: 400,
      errors: [{ field: "max_tool_steps" }],
    });
    expect((await agent("defaults")).agent.max_tool_steps).toBe(5);
  });

  it("lists each server's tools for the agent page, and an unreachable one as such", async () => {
    // Port 1 is never an ephemeral port: no server another test starts can answer there.
    const goneUrl = "http://127.0.0.1:1/mcp";
    await agent("lister", {
      mcp_servers: [
        { name: "calc", url: server().url, allowed_tools: ["add", "lookup"] },
        { name: "gone", url: goneUrl },
      ],
    });
    const listed = await caller(runtime()).tools.list({ aid: "lister" });
    expect(listed.servers.map((s) => [s.name, s.status])).toEqual([
      ["calc", "ok"],
      ["gone", "unreachable"],
    ]);
    const add = listed.servers[0]?.tools.find((tool) => tool.name === "add");
    expect(add).toMatchObject({ description: "Adds two numbers.", allowed: true });
    expect(add?.input_schema).toMatchObject({ type: "object", properties: { a: {}, b: {} } });
    expect(listed.servers[0]?.tools.find((t) => t.name === "delete_everything")?.allowed).toBe(
      false,
    );
    expect(listed.servers[1]?.error).toBeTruthy();
    expect(await problemOf(caller().tools.list({ aid: "nobody" }))).toMatchObject({ status: 404 });
  });

  it("gives the model an error for a server that went away, and the chat answers", async () => {
    const going = await startMcpServer();
    const model = runtime();
    await agent("stranded", {
      mcp_servers: [{ name: "going", url: going.url, allowed_tools: ["add"] }],
    });
    fake().behave(
      { kind: "tools", calls: [{ name: "add", arguments: { a: 1, b: 1 } }] },
      { kind: "reply", text: "2" },
    );
    await caller(model).chat.send({ aid: "stranded", q: "1+1" });
    await going.close();
    fake().behave(
      { kind: "tools", calls: [{ name: "add", arguments: { a: 2, b: 2 } }] },
      { kind: "reply", text: "The calculator is down." },
    );
    const reply = await caller(model).chat.send({ aid: "stranded", q: "2+2" });
    expect(reply.reply).toBe("The calculator is down.");
    expect(reply.tool_calls).toMatchObject([
      { name: "add", result: null, error: "MCP server 'going' could not be reached." },
    ]);
  });

  it("cuts a large result at MCP_RESULT_MAX_CHARS, saying so, before the model and the thread see it", async () => {
    const model = runtime({ MCP_RESULT_MAX_CHARS: "100" });
    await agent("bounded");
    fake().behave(
      { kind: "tools", calls: [{ name: "big", arguments: { chars: 5000 } }] },
      { kind: "reply", text: "big" },
    );
    const reply = await caller(model).chat.send({ aid: "bounded", q: "big" });
    const cut = `${"x".repeat(100)}\n[cut: 5,000 characters, the first 100 shown]`;
    expect(reply.tool_calls[0]?.result).toBe(cut);
    expect(fake().requests[1]?.messages.at(-1)?.content).toBe(cut);
    const [stored] = await testDatabase()
      .db.select()
      .from(chatMessages)
      .where(eq(chatMessages.role, "assistant"));
    expect(stored?.toolCalls?.[0]?.result).toBe(cut);
  });

  it("runs an autonomous prompt with a tool and records the call on the run", async () => {
    const model = runtime();
    await agent("runner", { autonomous_prompt: "Add 20 and 22." });
    fake().behave(
      { kind: "tools", calls: [{ name: "add", arguments: { a: 20, b: 22 } }] },
      { kind: "reply", text: "42" },
    );
    const run = await caller(model).runs.runNow({ aid: "runner" });
    expect(run).toMatchObject({
      outcome: "succeeded",
      reply: "42",
      finished_at: "2026-11-21T20:00:00.000Z",
      usage: { input_tokens: 20, output_tokens: 10, estimated: false },
      tool_calls: [{ server: "calc", name: "add", arguments: { a: 20, b: 22 }, result: "42" }],
    });
    // As stored with the run (the store's guard writes them), not only as returned.
    const [stored] = (await caller().runs.list({ aid: "runner" })).runs;
    expect(stored?.tool_calls).toHaveLength(1);
    expect(stored).toMatchObject({ reply: "42", tool_calls: run.tool_calls });
    const { messages } = await caller().threads.messages({
      aid: "runner",
      caller: "agent",
      chat_id: "autonomous",
    });
    expect(messages[1]?.tool_calls).toMatchObject([{ name: "add", result: "42" }]);
    expect(server().calls).toEqual([{ name: "add", arguments: { a: 20, b: 22 } }]);
  });
});
