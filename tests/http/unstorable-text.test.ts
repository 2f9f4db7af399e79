import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../helpers/database-kinds";
import type { FakeOpenAi, FakeToolCall } from "../helpers/fake-openai";
import { startMcpServer, type TestMcpServer } from "../helpers/mcp-server";
import { type ModelServer, startModelServer } from "../helpers/model-server";
import { type RunningServer, TEST_ADMIN_KEY } from "../helpers/server";

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };

/** CHAT_MAX_REPLY_CHARS of the service under test: small, so a reply's cut can be aimed. */
const REPLY_CAP = 40;

/**
 * A reply holding what PostgreSQL cannot store (a NUL, a lone high and a lone low surrogate),
 * three emoji the fake's 2-character stream pieces each split into their two halves, and
 * another one straddling the REPLY_CAP-th character once the NUL is gone.
 */
const RAW_REPLY = `a😀😀😀 nul\u0000 high\ud800 low\udc00 ${"x".repeat(16)}🙂 past the cap`;
/** The fake's stream pieces for 2 characters each: each of the first three emoji is split. */
const TWO_A_PIECE = Math.ceil(RAW_REPLY.length / 2);
/** As it must be sent and stored: NUL gone, lone surrogates U+FFFD, cut before the emoji. */
const REPLY = `a😀😀😀 nul high\ufffd low\ufffd ${"x".repeat(16)}`;

/**
 * The unstorable tool's text (UNSTORABLE_RESULT) as stored: NUL gone, the lone surrogates
 * U+FFFD, and cut at MCP_RESULT_MAX_CHARS (10,000) before the emoji across it.
 */
const TOOL_TEXT = `ab\ufffdc\ufffd${"x".repeat(9994)}\n[cut: 10,002 characters, the first 9,999 shown]`;

/** Tool calls a model may send with unstorable text: ids, names, arguments; and their records. */
const CALLS: FakeToolCall[] = [
  { name: "unstorable", arguments: { as: "result" } },
  { name: "unstorable", arguments: { as: "error" } },
  { name: "lookup", arguments: { key: "k\u0000\ud800" }, id: "lk\u0000\udc00" },
  { name: "no\u0000such\ud800", arguments: { "n\u0000ote\udc00": "v\u0000" } },
  { name: "add", arguments: "not json\u0000 \ud800" },
  // The tool server's own name for it holds a NUL and a lone surrogate: offered under this one.
  { name: "calc__odd_name_", arguments: {} },
];
const RECORDS = [
  {
    id: "call_fake_1",
    step: 1,
    server: "calc",
    name: "unstorable",
    arguments: { as: "result" },
    result: TOOL_TEXT,
    error: null,
  },
  {
    id: "call_fake_2",
    step: 1,
    server: "calc",
    name: "unstorable",
    arguments: { as: "error" },
    result: null,
    error: TOOL_TEXT,
  },
  {
    id: "lk\ufffd",
    step: 1,
    server: "calc",
    name: "lookup",
    arguments: { key: "k\ufffd" },
    result: "value-of-k\ufffd",
    error: null,
  },
  {
    id: "call_fake_4",
    step: 1,
    server: null,
    name: "nosuch\ufffd",
    arguments: { "note\ufffd": "v" },
    result: null,
    error: "This agent has no tool named 'nosuch\ufffd'.",
  },
  {
    id: "call_fake_5",
    step: 1,
    server: "calc",
    name: "add",
    arguments: "not json \ufffd",
    result: null,
    error: "The arguments are not a JSON object.",
  },
  {
    id: "call_fake_6",
    step: 1,
    server: "calc",
    name: "oddname\ufffd",
    arguments: {},
    result: "named oddly",
    error: null,
  },
];

/**
 * Issue #23: a NUL, a lone surrogate, or a cut through a surrogate pair in what a model or a
 * tool sends made PostgreSQL refuse the reply's row (500 on PostgreSQL and PGlite alike, a
 * failed autonomous run). Such text is now stored as it can be, and sent as it is stored.
 */
describe.each(DATABASE_KINDS)("text from a model or a tool, made storable, on %s", (kind) => {
  let server: RunningServer;
  let fake: FakeOpenAi;
  let mcp: TestMcpServer;
  let running: ModelServer | undefined;

  beforeAll(async () => {
    mcp = await startMcpServer({ unstorable: true });
    running = await startModelServer(kind, {
      LLM_MAX_RETRIES: "0",
      MCP_ALLOWED_HOSTS: "127.0.0.1",
      CHAT_MAX_REPLY_CHARS: String(REPLY_CAP),
    });
    ({ server, fake } = running);
    for (const aid of ["odd-chat", "odd-runner"]) {
      const created = await post("/agents", {
        aid,
        mcp_servers: [{ name: "calc", url: mcp.url }],
        autonomous_prompt: "Do the odd thing.",
      });
      expect(created.status).toBe(201);
    }
  });
  afterAll(async () => {
    await running?.stop();
    await mcp?.close();
  });

  const post = (path: string, body?: unknown) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      headers: admin,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const get = async (path: string) => {
    const response = await fetch(`${server.url}${path}`, { headers: admin });
    expect(response.status).toBe(200);
    return response.json();
  };
  const chat = (chatId: string, accept: string) =>
    fetch(`${server.url}/odd-chat/chat?q=odd&chat_id=${chatId}`, {
      headers: { accept, authorization: admin.authorization },
    });
  /** The reply stored in the admin's thread `chatId` of odd-chat. */
  const storedReply = async (chatId: string) => {
    const { messages } = await get(`/agents/odd-chat/threads/${chatId}/messages`);
    expect(messages).toHaveLength(2);
    return messages[1];
  };
  const events = async (response: Response) =>
    (await response.text())
      .split("\n\n")
      .filter(Boolean)
      .map((block) => ({
        event: /^event: (.*)$/m.exec(block)?.[1],
        data: JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? "null"),
      }));
  const replyAsked = () => fake.behave({ kind: "reply", text: RAW_REPLY });
  const toolsAsked = () =>
    fake.behave({ kind: "tools", calls: CALLS }, { kind: "reply", text: "done" });

  it("answers a model's unstorable reply with 200 in JSON and stores it made storable", async () => {
    replyAsked();
    const response = await chat("json", "application/json");
    expect(response.status).toBe(200);
    expect((await response.json()).reply).toBe(REPLY);
    expect((await storedReply("json")).content).toBe(REPLY);
  });

  it("answers it in text/plain", async () => {
    replyAsked();
    const response = await chat("plain", "text/plain");
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(REPLY);
    expect((await storedReply("plain")).content).toBe(REPLY);
  });

  it("streams it with every delta well formed, a pair split between two reads kept whole", async () => {
    // 2 characters a piece, each written 20 ms after the last: the service reads the two
    // halves of an emoji in two network reads (at least once in three).
    fake.behave({ kind: "reply", text: RAW_REPLY, chunks: TWO_A_PIECE, chunkDelayMs: 20 });
    const response = await chat("sse", "text/event-stream");
    expect(response.status).toBe(200);
    const all = await events(response);
    expect(all.at(-1)).toMatchObject({ event: "done", data: { reply: REPLY } });
    const deltas = all.filter((e) => e.event === "delta").map((e) => e.data.text as string);
    expect(deltas.join("")).toBe(REPLY);
    for (const delta of deltas) expect(delta.isWellFormed()).toBe(true);
    expect((await storedReply("sse")).content).toBe(REPLY);
  });

  it("records a model's unstorable tool calls and a tool's unstorable results in JSON", async () => {
    toolsAsked();
    const response = await chat("tools-json", "application/json");
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({ reply: "done", tool_calls: RECORDS });
    expect(await storedReply("tools-json")).toMatchObject({ content: "done", tool_calls: RECORDS });
    // The tools were given the arguments as they are stored.
    expect(mcp.calls.find((call) => call.name === "lookup")?.arguments).toEqual({ key: "k\ufffd" });
  });

  it("streams them as they are stored", async () => {
    toolsAsked();
    const response = await chat("tools-sse", "text/event-stream");
    expect(response.status).toBe(200);
    const all = await events(response);
    expect(all.filter((e) => e.event === "tool_call").map((e) => e.data)).toEqual(
      RECORDS.map(({ id, step, server, name, arguments: args }) => ({
        id,
        step,
        server,
        name,
        arguments: args,
      })),
    );
    expect(all.filter((e) => e.event === "tool_result").map((e) => e.data)).toMatchObject(RECORDS);
    expect(all.at(-1)).toMatchObject({ event: "done", data: { tool_calls: RECORDS } });
    expect(await storedReply("tools-sse")).toMatchObject({ content: "done", tool_calls: RECORDS });
  });

  it("runs an autonomous run with them to success (Run now) and lists it as stored", async () => {
    fake.behave({ kind: "tools", calls: CALLS }, { kind: "reply", text: RAW_REPLY });
    const response = await post("/agents/odd-runner/runs");
    expect(response.status).toBe(202);
    const run = await response.json();
    expect(run).toMatchObject({ outcome: "succeeded", error: null, reply: REPLY });
    expect(run.tool_calls).toMatchObject(RECORDS);
    const { runs } = await get("/agents/odd-runner/runs");
    expect(runs[0]).toMatchObject({
      id: run.id,
      outcome: "succeeded",
      reply: REPLY,
      tool_calls: RECORDS,
    });
    const { messages } = await get("/agents/odd-runner/threads/autonomous/messages?caller=agent");
    expect(messages.at(-1)).toMatchObject({ content: REPLY, tool_calls: RECORDS });
  });
});
