import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { fixedClock } from "@/server/kit/clock";
import { storeExchange } from "@/server/threads";
import type { ToolCall } from "@/server/tools";
import { callerFor } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";

/**
 * Issue #23 beside tests/http/unstorable-text.test.ts (the OpenAI-compatible provider and MCP
 * tools over HTTP): the built-in echo provider, and the store's own guard.
 */
describe.each(DATABASE_KINDS)("unstorable text, on %s", (kind) => {
  const clock = fixedClock("2026-11-21T20:00:00Z");
  const testDatabase = useTestDatabase(kind, { clock, start: "2026-11-21T20:00:00Z" });
  const caller = () => callerFor(testDatabase().db, { clock });

  it("has the echo provider repeat a lone surrogate of a question as it is stored", async () => {
    await caller().agents.upsert({ aid: "echoed" });
    // JSON (tRPC, as here) can carry a lone surrogate in `q`; PostgreSQL stores it as U+FFFD.
    const sent = await caller().chat.send({ aid: "echoed", q: "half \ud83d here" });
    expect(sent.reply).toBe("echo: half \ufffd here");
    const { messages } = await caller().threads.messages({ aid: "echoed" });
    expect(messages.map((message) => message.content)).toEqual([
      "half \ufffd here",
      "echo: half \ufffd here",
    ]);
  });

  /**
   * A reply or a tool call holding a NUL or a lone surrogate that reached the store some other
   * way than through a provider or a tool (which make such text storable where it enters) is
   * stored made storable rather than failing the statement.
   */
  it("stores the reply and its tool calls made storable", async () => {
    await caller().agents.upsert({ aid: "guarded" });
    const call: ToolCall = {
      id: "id\u0000",
      step: 1,
      server: null,
      name: "t\ud800",
      arguments: { "k\u0000": "v\udc00" },
      result: "r\u0000",
      error: null,
      duration_ms: 0,
    };
    const { stored } = await storeExchange(
      testDatabase().db,
      {
        aid: "guarded",
        caller: "admin",
        chatId: "default",
        question: "q",
        reply: "a\u0000b\ud83d",
        model: "m",
        usage: { input_tokens: 1, output_tokens: 1, estimated: false },
        toolCalls: [call],
        askedAt: clock.now(),
        answeredAt: clock.now(),
      },
      {
        key: "always",
        build: () => sql`SELECT guard_id, 0::bigint AS held_tokens FROM exchanges`,
        id: 0,
      },
      "message",
    );
    expect(stored).toBe(true);
    const { messages } = await caller().threads.messages({ aid: "guarded" });
    expect(messages[1]).toMatchObject({
      content: "ab\ufffd",
      tool_calls: [
        { id: "id", name: "t\ufffd", arguments: { k: "v\ufffd" }, result: "r", error: null },
      ],
    });
  });
});
