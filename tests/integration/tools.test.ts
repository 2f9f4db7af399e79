import { describe, expect, it } from "vitest";
import { chatMessages } from "@/db/schema";
import type { ChatEvent } from "@/server/chat";
import { fixedClock } from "@/server/kit/clock";
import { problemOf } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";
import { useFakeOpenAi } from "../helpers/use-fake-openai";
import { useTools } from "../helpers/use-tools";

async function collect(events: AsyncIterable<ChatEvent>): Promise<ChatEvent[]> {
  const all: ChatEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

const until = async (condition: () => boolean) => {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 25));
  return condition();
};

/**
 * Issue #17: the model asks for tools through the real OpenAI protocol (the fake endpoint), the
 * service calls them on a real MCP server on loopback, gives the results back and stores it all.
 */
describe.each(DATABASE_KINDS)("tool calls in chat on %s", (kind) => {
  const clock = fixedClock("2026-11-21T20:00:00Z");
  const testDatabase = useTestDatabase(kind, { clock, start: "2026-11-21T20:00:00Z" });
  const fake = useFakeOpenAi("Hello from the fake model.");
  const { server, runtime, caller, agent } = useTools(testDatabase, fake, clock);
  const quotaOf = async (aid: string) => (await caller().agents.get({ aid })).quota;

  it.each([false, true])(
    "calls one tool and answers with its result (streamed: %s)",
    async (streamed) => {
      const model = runtime();
      await agent("adder");
      fake().behave(
        { kind: "tools", calls: [{ name: "add", arguments: { a: 2, b: 3 } }] },
        { kind: "reply", text: "The sum is 5." },
      );
      const expected = {
        id: "call_fake_1",
        step: 1,
        server: "calc",
        name: "add",
        arguments: { a: 2, b: 3 },
        result: "5",
        error: null,
      };
      let reply: ChatEvent;
      if (streamed) {
        const events = await collect(await caller(model).chat.stream({ aid: "adder", q: "2+3?" }));
        expect(events.map((e) => e.type)).toEqual([
          "start",
          "tool_call",
          "tool_result",
          ...events.slice(3, -1).map(() => "delta"),
          "done",
        ]);
        expect(events[1]).toEqual({
          type: "tool_call",
          id: "call_fake_1",
          step: 1,
          server: "calc",
          name: "add",
          arguments: { a: 2, b: 3 },
        });
        expect(events[2]).toMatchObject({ type: "tool_result", ...expected });
        reply = events.at(-1) as ChatEvent;
      } else {
        reply = { type: "done", ...(await caller(model).chat.send({ aid: "adder", q: "2+3?" })) };
      }
      expect(reply).toMatchObject({ reply: "The sum is 5.", tool_calls: [expected] });
      // Two model turns, their tokens summed (the fake reports 10 in, 5 out each).
      expect(reply).toMatchObject({
        usage: { input_tokens: 20, output_tokens: 10, estimated: false },
      });
      expect(server().calls).toEqual([{ name: "add", arguments: { a: 2, b: 3 } }]);

      const [first, second] = fake().requests;
      expect(first?.tools?.map((tool) => tool.function.name).sort()).toEqual(
        ["add", "big", "delete_everything", "fail", "lookup", "slow"].sort(),
      );
      expect(first?.tool_choice).toBeUndefined();
      expect(second?.messages.slice(-2)).toEqual([
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "call_fake_1",
              type: "function",
              function: { name: "add", arguments: '{"a":2,"b":3}' },
            },
          ],
        },
        { role: "tool", tool_call_id: "call_fake_1", content: "5" },
      ]);
      // One message against the quota for the whole chat; the calls are stored with the reply.
      expect((await quotaOf("adder")).message_count_total).toBe(1);
      const { messages } = await caller().threads.messages({ aid: "adder" });
      expect(messages.map((m) => [m.role, m.tool_calls.length])).toEqual([
        ["user", 0],
        ["assistant", 1],
      ]);
      expect(messages[1]?.tool_calls[0]).toMatchObject(expected);
    },
  );

  it("chains two calls, each turn seeing the results before it, and gives them as history later", async () => {
    const model = runtime();
    await agent("chainer");
    fake().behave(
      { kind: "tools", calls: [{ name: "lookup", arguments: { key: "a" }, id: "c1" }] },
      { kind: "tools", calls: [{ name: "lookup", arguments: { key: "value-of-a" }, id: "c2" }] },
      { kind: "reply", text: "It is value-of-value-of-a." },
    );
    const reply = await caller(model).chat.send({ aid: "chainer", q: "follow a" });
    expect(reply.reply).toBe("It is value-of-value-of-a.");
    expect(reply.tool_calls.map((c) => [c.id, c.step, c.result])).toEqual([
      ["c1", 1, "value-of-a"],
      ["c2", 2, "value-of-value-of-a"],
    ]);
    expect(fake().requests).toHaveLength(3);
    expect(
      fake()
        .requests[2]?.messages.filter((m) => m.role === "tool")
        .map((m) => m.content),
    ).toEqual(["value-of-a", "value-of-value-of-a"]);

    // The next chat of the thread gives the model the whole exchange, calls included.
    fake().behave({ kind: "reply", text: "ok" });
    await caller(model).chat.send({ aid: "chainer", q: "and now?" });
    const history = fake().requests[3]?.messages.map((m) => [
      m.role,
      m.content,
      m.tool_calls?.[0]?.id,
    ]);
    expect(history).toEqual([
      ["system", "You are chainer.", undefined],
      ["user", "follow a", undefined],
      ["assistant", null, "c1"],
      ["tool", "value-of-a", undefined],
      ["assistant", null, "c2"],
      ["tool", "value-of-value-of-a", undefined],
      ["assistant", "It is value-of-value-of-a.", undefined],
      ["user", "and now?", undefined],
    ]);
  });

  it("gives a tool's error to the model, which answers anyway, and records it", async () => {
    const model = runtime();
    await agent("failing");
    fake().behave(
      { kind: "tools", calls: [{ name: "fail", arguments: {} }] },
      { kind: "reply", text: "The tool failed, sorry." },
    );
    const reply = await caller(model).chat.send({ aid: "failing", q: "try" });
    expect(reply.reply).toBe("The tool failed, sorry.");
    expect(reply.tool_calls).toMatchObject([
      { name: "fail", result: null, error: "the tool failed on purpose" },
    ]);
    expect(fake().requests[1]?.messages.at(-1)).toEqual({
      role: "tool",
      tool_call_id: "call_fake_1",
      content: "Error: the tool failed on purpose",
    });
  });

  it("times a slow tool out, cancels it at the server, and the chat still answers", async () => {
    const model = runtime({ MCP_TOOL_TIMEOUT_MS: "300" });
    await agent("patient");
    // The first chat lists the tools (under the short timeout too) before the slow call.
    fake().behave(
      { kind: "tools", calls: [{ name: "slow", arguments: { ms: 10_000 } }] },
      { kind: "reply", text: "It took too long." },
    );
    const cancelledBefore = server().cancelled;
    const reply = await caller(model).chat.send({ aid: "patient", q: "wait" });
    expect(reply.reply).toBe("It took too long.");
    expect(reply.tool_calls).toMatchObject([
      { name: "slow", result: null, error: "MCP server 'calc' did not answer within 300 ms." },
    ]);
    expect(await until(() => server().cancelled > cancelledBefore)).toBe(true);
    expect((await quotaOf("patient")).message_count_total).toBe(1);
  });

  it("never calls a tool outside allowed_tools, even when the model asks for it", async () => {
    const model = runtime();
    await agent("careful", {
      mcp_servers: [{ name: "calc", url: server().url, allowed_tools: ["add"] }],
    });
    fake().behave(
      { kind: "tools", calls: [{ name: "delete_everything", arguments: {} }] },
      { kind: "reply", text: "I cannot do that." },
    );
    const reply = await caller(model).chat.send({ aid: "careful", q: "delete it all" });
    expect(fake().requests[0]?.tools?.map((tool) => tool.function.name)).toEqual(["add"]);
    expect(reply.tool_calls).toMatchObject([
      {
        server: null,
        name: "delete_everything",
        result: null,
        error: "This agent has no tool named 'delete_everything'.",
      },
    ]);
    expect(server().calls).toEqual([]);
  });

  it("stops calling tools at max_tool_steps and asks for an answer with tool_choice none", async () => {
    const model = runtime();
    await agent("looper", { max_tool_steps: 2 });
    fake().behave(
      { kind: "tools", calls: [{ name: "add", arguments: { a: 1, b: 1 } }] },
      { kind: "tools", calls: [{ name: "add", arguments: { a: 2, b: 2 } }] },
      // A model that ignores tool_choice none: its calls are recorded, not made.
      { kind: "tools", calls: [{ name: "add", arguments: { a: 3, b: 3 } }], text: "Enough." },
    );
    const reply = await caller(model).chat.send({ aid: "looper", q: "loop" });
    expect(fake().requests.map((r) => r.tool_choice)).toEqual([undefined, undefined, "none"]);
    expect(server().calls.map((c) => c.arguments)).toEqual([
      { a: 1, b: 1 },
      { a: 2, b: 2 },
    ]);
    expect(reply.reply).toBe("Enough.");
    expect(reply.tool_calls.map((c) => [c.step, c.result, c.error])).toEqual([
      [1, "2", null],
      [2, "4", null],
      [3, null, "Not called: this agent's max_tool_steps (2) was reached."],
    ]);
  });

  it("offers no tools with max_tool_steps 0, and leaves past tool turns out of the history", async () => {
    const model = runtime();
    await agent("quiet");
    fake().behave(
      { kind: "tools", calls: [{ name: "add", arguments: { a: 1, b: 2 } }] },
      { kind: "reply", text: "3" },
    );
    await caller(model).chat.send({ aid: "quiet", q: "1+2" });
    await caller().agents.upsert({ aid: "quiet", max_tool_steps: 0 });
    fake().behave({ kind: "reply", text: "plain" });
    await caller(model).chat.send({ aid: "quiet", q: "again" });
    const last = fake().requests.at(-1);
    expect(last?.tools).toBeUndefined();
    expect(last?.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
  });

  it("fails the chat only when the model fails: 502 after a tool call, quota given back", async () => {
    const model = runtime();
    await agent("broken-model");
    fake().behave(
      { kind: "tools", calls: [{ name: "add", arguments: { a: 1, b: 2 } }] },
      { kind: "error", status: 500 },
    );
    expect(
      await problemOf(caller(model).chat.send({ aid: "broken-model", q: "1+2" })),
    ).toMatchObject({
      status: 502,
    });
    expect(server().calls).toHaveLength(1);
    expect((await quotaOf("broken-model")).message_count_total).toBe(0);
    expect(await testDatabase().db.select().from(chatMessages)).toHaveLength(0);
    expect(model.slots.busy).toBe(0);
  });

  it("frees the model slot and gives the quota back when the client leaves during a tool call", async () => {
    const model = runtime();
    await agent("leaver");
    fake().behave({ kind: "tools", calls: [{ name: "slow", arguments: { ms: 10_000 } }] });
    const controller = new AbortController();
    const cancelledBefore = server().cancelled;
    const events = await caller(model, { signal: controller.signal }).chat.stream({
      aid: "leaver",
      q: "wait",
    });
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of events) {
        seen.push(event.type);
        if (event.type === "tool_call") controller.abort();
      }
    })();
    await expect(reading).rejects.toBeDefined();
    expect(seen).toEqual(["start", "tool_call"]);
    expect(await until(() => server().cancelled > cancelledBefore)).toBe(true);
    expect(model.slots.busy).toBe(0);
    expect((await quotaOf("leaver")).message_count_total).toBe(0);
    expect(await testDatabase().db.select().from(chatMessages)).toHaveLength(0);
  });

  it("counts each chat with tools as one message, exactly, under many at once", async () => {
    const model = runtime();
    await agent("crowded", { quota: { message_limit_daily: 10 } });
    fake().behaveBy((request) =>
      request.messages.at(-1)?.role === "tool"
        ? { kind: "reply", text: "done" }
        : { kind: "tools", calls: [{ name: "add", arguments: { a: 1, b: 1 } }] },
    );
    const outcomes = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) =>
        caller(model).chat.send({ aid: "crowded", q: "1+1", chat_id: `t${i}` }),
      ),
    );
    const answered = outcomes.filter((o) => o.status === "fulfilled");
    expect(answered).toHaveLength(10);
    const refused = await Promise.all(
      outcomes.flatMap((o) =>
        o.status === "rejected" ? [problemOf(Promise.reject(o.reason))] : [],
      ),
    );
    expect(refused.every((p) => p.status === 429 && p.code === "quota_exceeded")).toBe(true);
    expect((await quotaOf("crowded")).message_count_daily).toBe(10);
    // Refused chats never reached the model or the tool.
    expect(server().calls).toHaveLength(10);
    const stored = await testDatabase().db.select().from(chatMessages);
    expect(stored.filter((m) => m.toolCalls?.length === 1)).toHaveLength(10);
    expect(model.slots.busy).toBe(0);
  });

  it("opens a new session when the server forgot the old one", async () => {
    const model = runtime();
    await agent("resumer");
    fake().behave(
      { kind: "tools", calls: [{ name: "add", arguments: { a: 1, b: 1 } }] },
      { kind: "reply", text: "2" },
    );
    await caller(model).chat.send({ aid: "resumer", q: "1+1" });
    const opened = server().sessionsOpened();
    server().forgetSessions();
    fake().behave(
      { kind: "tools", calls: [{ name: "add", arguments: { a: 2, b: 2 } }] },
      { kind: "reply", text: "4" },
    );
    const reply = await caller(model).chat.send({ aid: "resumer", q: "2+2" });
    expect(reply.tool_calls).toMatchObject([{ result: "4", error: null }]);
    expect(server().sessionsOpened()).toBe(opened + 1);
  });
});
