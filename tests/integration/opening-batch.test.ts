import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/rows";
import { parseAgentKey } from "@/server/agent-keys";
import type { Caller } from "@/server/callers";
import { openChat } from "@/server/chat";
import { fixedClock } from "@/server/kit/clock";
import { callerFor } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";

const anonymous = (addressHash: string): Caller => ({ kind: "anonymous", addressHash });

/**
 * Chats of a process that open together are opened by one statement (server/chat's openChat),
 * several of one agent among them: each still admitted, rate-limited and counted on its own, in
 * turn, exactly.
 */
describe.each(DATABASE_KINDS)("chats opened together, on %s", (kind) => {
  const clock = fixedClock("2026-11-30T12:00:00Z");
  const testDatabase = useTestDatabase(kind, { clock, start: "2026-11-30T12:00:00Z" });
  const admin = () => callerFor(testDatabase().db, { clock });
  const agent = (aid: string, fields: Record<string, unknown> = {}) =>
    admin().agents.upsert({ aid, rate_limit_rpm: null, ...fields } as { aid: string });
  const open = (aid: string, caller: Caller, chatId = "t", inputChars = 40) =>
    openChat(
      { db: testDatabase().db, clock },
      { aid, caller, chatId, inputChars },
      { historyMessages: 20, historyMaxChars: 10_000 },
    );
  const query = async <T>(text: ReturnType<typeof sql>) =>
    rowsOf<T>(await testDatabase().db.execute(text));

  it("opens 30 chats of 10 agents at once in fewer statements, each counted exactly", async () => {
    const aids = Array.from({ length: 10 }, (_, i) => `batch-${i}`);
    for (const aid of aids) await agent(aid, { quota: { message_limit_daily: 2 } });
    const openings = await Promise.all(
      Array.from({ length: 30 }, (_, i) => open(aids[i % 10] as string, { kind: "admin" })),
    );
    // Two of each agent's three opened, and the third refused by its daily limit.
    for (const aid of aids) {
      const outcomes = openings
        .filter((_, i) => aids[i % 10] === aid)
        .map((opening) => opening.outcome)
        .sort();
      expect(outcomes).toEqual(["opened", "opened", "quota_exceeded"]);
    }
    const reservations = await query<{ aid: string; tx: string }>(
      sql`SELECT aid, xmin::text AS tx FROM chat_reservations ORDER BY id`,
    );
    expect(reservations).toHaveLength(20);
    // Opened together: fewer transactions than chats wrote the reservations.
    expect(new Set(reservations.map((row) => row.tx)).size).toBeLessThan(20);
    const counts = await query<{ aid: string; daily: number; refused: number }>(
      sql`SELECT q.aid, q.message_count_daily AS daily, h.refused_quota AS refused
        FROM agent_quotas q JOIN usage_hourly h USING (aid) ORDER BY q.aid`,
    );
    expect(counts).toEqual(aids.map((aid) => ({ aid, daily: 2, refused: 1 })));
  });

  it("opens many chats of one agent at once, each counted in turn against its limit", async () => {
    await agent("hot", { quota: { message_limit_daily: 20 } });
    const openings = await Promise.all(
      Array.from({ length: 30 }, (_, i) => open("hot", { kind: "admin" }, `t${i}`)),
    );
    const opened = openings.flatMap((opening) => (opening.outcome === "opened" ? [opening] : []));
    expect(opened).toHaveLength(20);
    expect(openings.filter((opening) => opening.outcome === "quota_exceeded")).toHaveLength(10);
    // Each chat's quota as of its own use: 1 to 20, as if they had opened one after another.
    expect(opened.map((chat) => chat.quotaRow.messageCountDaily).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    expect(new Set(opened.map((chat) => chat.reservationId)).size).toBe(20);
    const reservations = await query<{ tx: string }>(
      sql`SELECT xmin::text AS tx FROM chat_reservations WHERE aid = 'hot'`,
    );
    expect(reservations).toHaveLength(20);
    expect(new Set(reservations.map((row) => row.tx)).size).toBeLessThan(20);
    const [row] = await query<{ daily: number; holds: number }>(
      sql`SELECT message_count_daily AS daily, token_holds::int AS holds FROM agent_quotas
        WHERE aid = 'hot'`,
    );
    const held = await query<{ sum: number }>(
      sql`SELECT sum(held_tokens)::int AS sum FROM chat_reservations WHERE aid = 'hot'`,
    );
    expect(row).toEqual({ daily: 20, holds: held[0]?.sum });
  });

  it("gives a token budget's room to the chats of a batch that fit, in turn", async () => {
    // Held tokens: (input + "You are tokens." 15 chars) / 4: 30, 30, 60 and 10.
    await agent("tokens", { quota: { token_limit_daily: 100 } });
    const chats: Array<[number, string]> = [
      [105, "opened"],
      [105, "opened"],
      [225, "quota_exceeded"],
      [25, "opened"],
    ];
    const outcomes = await Promise.all(
      chats.map(([input], i) =>
        open("tokens", { kind: "admin" }, `t${i}`, input).then((opening) => opening.outcome),
      ),
    );
    expect(outcomes).toEqual(chats.map(([, outcome]) => outcome));
    const [row] = await query<{ holds: number }>(
      sql`SELECT token_holds::int AS holds FROM agent_quotas WHERE aid = 'tokens'`,
    );
    expect(row?.holds).toBe(70);
  });

  it("counts a caller's chats with a rate-limited agent in its window one by one", async () => {
    await agent("limited-hot", { rate_limit_rpm: 3 });
    const callers = ["7", "7", "8", "7", "7", "7", "8", "7"];
    const outcomes = await Promise.all(
      callers.map((caller, i) =>
        open("limited-hot", anonymous(caller), `t${i}`).then((opening) => opening.outcome),
      ),
    );
    const of = (caller: string, outcome: string) =>
      outcomes.filter((found, i) => callers[i] === caller && found === outcome).length;
    expect([of("7", "opened"), of("7", "rate_limited"), of("8", "opened")]).toEqual([3, 3, 2]);
    const windows = await query<{ caller: string; count: number }>(
      sql`SELECT caller, count FROM chat_rate_limits WHERE aid = 'limited-hot' ORDER BY caller`,
    );
    expect(windows).toEqual([
      { caller: "addr:7", count: 3 },
      { caller: "addr:8", count: 2 },
    ]);
    const [quota] = await query<{ daily: number; refused: number }>(
      sql`SELECT q.message_count_daily AS daily, h.refused_rate AS refused
        FROM agent_quotas q JOIN usage_hourly h USING (aid) WHERE q.aid = 'limited-hot'`,
    );
    expect(quota).toEqual({ daily: 5, refused: 3 });
  });

  it("answers each of a batch of callers of every kind as if it were alone", async () => {
    await agent("open-agent");
    await agent("keyed", { chat_access: "key" });
    await agent("paused-agent", { paused: true });
    await agent("limited", { rate_limit_rpm: 1 });
    const { key } = await admin().agentKeys.create({ aid: "keyed", name: "app" });
    const presented = parseAgentKey(key);
    if (!presented) throw new Error("not an agent key");
    const wrongSecret = { ...presented, secretHash: `${presented.secretHash}0` };
    const cases: Array<[string, Caller, string]> = [
      ["open-agent", anonymous("1"), "opened"],
      ["keyed", { kind: "key", key: presented }, "opened"],
      ["keyed", anonymous("2"), "key_required"],
      ["paused-agent", { kind: "admin" }, "paused"],
      ["missing", anonymous("3"), "not_found"],
      // A lone surrogate in a name is no agent's, not a failure of the batch's JSON.
      ["bad\ud800name", anonymous("4"), "not_found"],
      ["limited", anonymous("5"), "opened"],
      ["limited", anonymous("6"), "opened"],
    ];
    const outcomes = await Promise.all(
      cases.map(([aid, caller]) => open(aid, caller).then((opening) => opening.outcome)),
    );
    expect(outcomes).toEqual(cases.map(([, , outcome]) => outcome));
    // A key of the agent with another secret, alongside the right one.
    const [right, wrong] = await Promise.all([
      open("keyed", { kind: "key", key: presented }),
      open("keyed", { kind: "key", key: wrongSecret }),
    ]);
    expect([right.outcome, wrong.outcome]).toEqual(["opened", "key_invalid"]);

    // Each caller of the limited agent has its own window of one chat a minute.
    const again = await Promise.all([
      open("limited", anonymous("5")),
      open("limited", anonymous("6")),
      open("open-agent", anonymous("5")),
    ]);
    expect(again.map((opening) => opening.outcome)).toEqual([
      "rate_limited",
      "rate_limited",
      "opened",
    ]);
    const windows = await query<{ caller: string; count: number }>(
      sql`SELECT caller, count FROM chat_rate_limits WHERE aid = 'limited' ORDER BY caller`,
    );
    expect(windows).toEqual([
      { caller: "addr:5", count: 1 },
      { caller: "addr:6", count: 1 },
    ]);
  });
});
