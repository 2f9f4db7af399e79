import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/rows";
import { openChat } from "@/server/chat";
import { fixedClock } from "@/server/kit/clock";
import { releaseMessage, settleMessage } from "@/server/quota";
import { type Exchange, storeExchange } from "@/server/threads";
import { callerFor } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";

/**
 * Chats of a process that end together are stored by one statement (server/threads'
 * storeExchange): each exchange still counted once, in its own thread, and settled only while
 * its reservation is held; one exchange's bad data fails that exchange alone.
 */
describe.each(DATABASE_KINDS)("exchanges stored together, on %s", (kind) => {
  const clock = fixedClock("2026-11-21T12:00:00Z");
  const testDatabase = useTestDatabase(kind, { clock, start: "2026-11-21T12:00:00Z" });
  const AGENTS = ["batch-a", "batch-b", "batch-c"];

  const open = async (aid: string, chatId: string) => {
    const opening = await openChat(
      { db: testDatabase().db, clock },
      { aid, caller: { kind: "admin" }, chatId, inputChars: 40 },
      { historyMessages: 20, historyMaxChars: 10_000 },
    );
    if (opening.outcome !== "opened") throw new Error(`not opened: ${opening.outcome}`);
    return opening.reservationId;
  };
  const exchange = (aid: string, chatId: string, i: number, inputTokens = 10): Exchange => ({
    aid,
    caller: "admin",
    chatId,
    question: `question ${i}`,
    reply: `reply ${i}`,
    // One agent's model has no price: its replies count as unpriced.
    model: aid === "batch-c" ? "unpriced" : "priced",
    usage: { input_tokens: inputTokens, output_tokens: 5, estimated: false },
    toolCalls: [],
    askedAt: clock.now(),
    answeredAt: clock.now(),
  });
  const query = async <T>(text: ReturnType<typeof sql>) =>
    rowsOf<T>(await testDatabase().db.execute(text));

  async function agentsMade() {
    const admin = callerFor(testDatabase().db, { clock });
    for (const aid of AGENTS) await admin.agents.upsert({ aid });
    await admin.prices.set({ model: "priced", input_per_million: 1000, output_per_million: 2000 });
  }

  it("stores 24 chats that end together in fewer statements, each counted once", async () => {
    await agentsMade();
    // Three agents, two threads each, four chats a thread: some share a thread's row.
    const chats = Array.from({ length: 24 }, (_, i) => ({
      aid: AGENTS[i % 3] as string,
      chatId: `t${i % 2}`,
      i,
    }));
    const reservations = await Promise.all(chats.map(({ aid, chatId }) => open(aid, chatId)));
    const results = await Promise.all(
      chats.map(({ aid, chatId, i }, n) =>
        storeExchange(
          testDatabase().db,
          exchange(aid, chatId, i),
          settleMessage(reservations[n] as number),
          "message",
        ),
      ),
    );
    expect(results.every((result) => result.stored)).toBe(true);
    // 10 tokens in and 5 out at the price: 0.01 + 0.01; none without one.
    expect(results.map((result) => result.cost)).toEqual(
      chats.map(({ aid }) => (aid === "batch-c" ? null : 0.02)),
    );

    // Each question just before its reply, in one thread, counted in its thread's row.
    const messages = await query<{ chat_id: string; role: string; content: string; tx: string }>(
      sql`SELECT chat_id, role, content, xmin::text AS tx FROM chat_messages ORDER BY id`,
    );
    expect(messages).toHaveLength(48);
    for (let m = 0; m < messages.length; m += 2) {
      const [question, reply] = [messages[m], messages[m + 1]];
      expect(question?.role).toBe("user");
      expect(reply?.role).toBe("assistant");
      expect(reply?.content).toBe(question?.content.replace("question", "reply"));
    }
    // Stored together: fewer transactions than chats wrote them.
    expect(new Set(messages.map((message) => message.tx)).size).toBeLessThan(24);
    const threads = await query<{ aid: string; chat_id: string; message_count: number }>(
      sql`SELECT aid, chat_id, message_count FROM chat_threads ORDER BY aid, chat_id`,
    );
    expect(threads).toEqual(
      AGENTS.flatMap((aid) => ["t0", "t1"].map((chat_id) => ({ aid, chat_id, message_count: 8 }))),
    );

    // Every use settled once: no reservation left, every hold ended, each hour counted.
    expect(await query(sql`SELECT id FROM chat_reservations`)).toEqual([]);
    const usage = await query<{
      aid: string;
      holds: boolean;
      input: number;
      cost: string;
      messages: number;
      unpriced: number;
    }>(
      sql`SELECT t.aid, t.holds_settled = q.token_holds AS holds,
          t.input_tokens_total::int AS input, t.cost_daily::text AS cost, h.messages, h.unpriced
        FROM agent_token_usage t JOIN agent_quotas q USING (aid)
        JOIN usage_hourly h USING (aid) ORDER BY t.aid`,
    );
    expect(usage.map((row) => ({ ...row, cost: Number(row.cost) }))).toEqual(
      AGENTS.map((aid) => ({
        aid,
        holds: true,
        input: 80,
        cost: aid === "batch-c" ? 0 : 0.16,
        messages: 8,
        unpriced: aid === "batch-c" ? 8 : 0,
      })),
    );
  });

  it("stores none whose use was given back, and the others", async () => {
    await agentsMade();
    const reservations = await Promise.all(
      Array.from({ length: 6 }, (_, i) => open(AGENTS[i % 3] as string, `g${i}`)),
    );
    await releaseMessage(testDatabase().db, {
      aid: "batch-a",
      reservationId: reservations[3] as number,
    });
    const results = await Promise.all(
      reservations.map((id, i) =>
        storeExchange(
          testDatabase().db,
          exchange(AGENTS[i % 3] as string, `g${i}`, i),
          settleMessage(id),
          "message",
        ),
      ),
    );
    expect(results.map((result) => result.stored)).toEqual([true, true, true, false, true, true]);
    const counted = await query<{ aid: string; messages: number; total: number }>(
      sql`SELECT h.aid, h.messages, q.message_count_total AS total
        FROM usage_hourly h JOIN agent_quotas q USING (aid) ORDER BY h.aid`,
    );
    expect(counted).toEqual([
      { aid: "batch-a", messages: 1, total: 1 },
      { aid: "batch-b", messages: 2, total: 2 },
      { aid: "batch-c", messages: 2, total: 2 },
    ]);
    expect(await query(sql`SELECT chat_id FROM chat_threads WHERE chat_id = 'g3'`)).toEqual([]);
  });

  it("fails an exchange whose data cannot be stored alone, storing the others", async () => {
    await agentsMade();
    const reservations = await Promise.all(
      Array.from({ length: 4 }, (_, i) => open(AGENTS[i % 3] as string, `f${i}`)),
    );
    const results = await Promise.allSettled(
      reservations.map((id, i) =>
        storeExchange(
          testDatabase().db,
          // More input tokens than a message's column holds (integer): the database refuses it.
          exchange(AGENTS[i % 3] as string, `f${i}`, i, i === 2 ? 3_000_000_000 : 10),
          settleMessage(id),
          "message",
        ),
      ),
    );
    expect(results.map((result) => result.status)).toEqual([
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
    ]);
    const threads = await query<{ chat_id: string }>(
      sql`SELECT chat_id FROM chat_threads ORDER BY chat_id`,
    );
    expect(threads.map((thread) => thread.chat_id)).toEqual(["f0", "f1", "f3"]);
    // The refused exchange's reservation is still held: its chat gives it back.
    expect(await query<{ id: number }>(sql`SELECT id::int FROM chat_reservations`)).toEqual([
      { id: reservations[2] },
    ]);
  });
});
