import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { agentQuotas, agents, chatMessages, chatReservations } from "@/db/schema";
import { openChat } from "@/server/chat";
import { fixedClock } from "@/server/kit/clock";
import { callerFor, problemOf, testConfig } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";

describe.each(DATABASE_KINDS)("agents on %s", (kind) => {
  const clock = fixedClock("2026-11-21T10:00:00Z");
  const testDatabase = useTestDatabase(kind, { clock, start: "2026-11-21T10:00:00Z" });
  const caller = () => callerFor(testDatabase().db, { clock });

  it("creates an agent with defaults and the configured default quota limits", async () => {
    const { created, agent } = await caller().agents.upsert({ aid: "support-bot" });
    expect(created).toBe(true);
    expect(agent).toMatchObject({
      aid: "support-bot",
      name: "support-bot",
      model: null,
      prompt: null,
      temperature: null,
      autonomous_enabled: false,
      autonomous_minutes: 60,
      autonomous_prompt: null,
      created_at: "2026-11-21T10:00:00.000Z",
      quota: {
        message_count_total: 0,
        message_limit_total: null,
        message_limit_monthly: 10_000,
        message_limit_daily: 1_000,
        autonomous_limit_total: null,
        autonomous_limit_monthly: 3_000,
        daily_resets_at: "2026-11-22T00:00:00.000Z",
        monthly_resets_at: "2026-12-01T00:00:00.000Z",
      },
    });
  });

  it("takes quota defaults from configuration at creation", async () => {
    const config = testConfig({
      QUOTA_DEFAULT_MESSAGE_LIMIT_DAILY: "7",
      QUOTA_DEFAULT_AUTONOMOUS_LIMIT_MONTHLY: "unlimited",
    });
    const { agent } = await callerFor(testDatabase().db, { clock, config }).agents.upsert({
      aid: "configured",
    });
    expect(agent.quota).toMatchObject({ message_limit_daily: 7, autonomous_limit_monthly: null });
  });

  it("updates only the fields given, clears with null, and keeps created_at", async () => {
    await caller().agents.upsert({
      aid: "helper",
      name: "Helper",
      model: "gpt-4o-mini",
      prompt: "Be brief.",
      temperature: 0.2,
      quota: { message_limit_daily: 5, message_limit_total: 100 },
    });
    clock.advance(60_000);
    const { created, agent } = await caller().agents.upsert({
      id: "helper",
      temperature: 1.1,
      prompt: null,
      quota: { message_limit_total: null },
    });
    expect(created).toBe(false);
    expect(agent).toMatchObject({
      name: "Helper",
      model: "gpt-4o-mini",
      prompt: null,
      temperature: 1.1,
      created_at: "2026-11-21T10:00:00.000Z",
      updated_at: "2026-11-21T10:01:00.000Z",
      quota: { message_limit_daily: 5, message_limit_total: null },
    });
  });

  it("requires an autonomous prompt once autonomous mode is on, judged on the stored result", async () => {
    const refused = await problemOf(
      caller().agents.upsert({ aid: "auto", autonomous_enabled: true }),
    );
    expect(refused).toMatchObject({ status: 400, errors: [{ field: "autonomous_prompt" }] });
    expect(await testDatabase().db.select().from(agents)).toHaveLength(0);

    await caller().agents.upsert({ aid: "auto", autonomous_prompt: "Summarise the news." });
    const { agent } = await caller().agents.upsert({
      aid: "auto",
      autonomous_enabled: true,
      autonomous_minutes: 5,
    });
    expect(agent).toMatchObject({ autonomous_enabled: true, autonomous_minutes: 5 });

    const clearing = await problemOf(
      caller().agents.upsert({ aid: "auto", autonomous_prompt: null }),
    );
    expect(clearing.status).toBe(400);
  });

  it("refuses callers without admin credentials", async () => {
    const anonymous = callerFor(testDatabase().db, { clock, admin: false });
    expect(await problemOf(anonymous.agents.upsert({ aid: "sneaky" }))).toMatchObject({
      status: 401,
    });
    expect(await problemOf(anonymous.agents.list({}))).toMatchObject({ status: 401 });
  });

  it("writes nothing when the write fails half-way", async () => {
    // A real failure inside the transaction, after the agent row is written: the quota insert.
    await testDatabase().db.execute(sql`
      CREATE FUNCTION refuse_quota() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'disk full (simulated)'; END $$`);
    await testDatabase().db.execute(
      sql`CREATE TRIGGER refuse_quota BEFORE INSERT ON agent_quotas FOR EACH ROW EXECUTE FUNCTION refuse_quota()`,
    );
    try {
      const failure = await problemOf(caller().agents.upsert({ aid: "half-written" }));
      expect(failure).toMatchObject({ status: 500, code: "internal_error" });
      expect(failure.detail).not.toContain("disk full");
      expect(await testDatabase().db.select().from(agents)).toHaveLength(0);
      expect(await testDatabase().db.select().from(agentQuotas)).toHaveLength(0);
    } finally {
      await testDatabase().db.execute(sql`DROP TRIGGER refuse_quota ON agent_quotas`);
      await testDatabase().db.execute(sql`DROP FUNCTION refuse_quota()`);
    }
  });

  it("creates only with agents.create: an aid in use is refused and left as it was", async () => {
    const made = await caller().agents.create({ aid: "only-once", name: "First", temperature: 1 });
    expect(made).toMatchObject({ aid: "only-once", name: "First", temperature: 1 });
    const refused = await problemOf(caller().agents.create({ aid: "only-once", name: "Second" }));
    expect(refused).toMatchObject({
      status: 409,
      code: "agent_exists",
      aid: "only-once",
      errors: [{ field: "aid", detail: "is the ID of an existing agent" }],
    });
    expect(await caller().agents.get({ aid: "only-once" })).toMatchObject({
      name: "First",
      temperature: 1,
    });
    // The upsert (POST /agents) still updates.
    expect((await caller().agents.upsert({ aid: "only-once", name: "Second" })).created).toBe(
      false,
    );
  });

  it("lets one of many concurrent creates of an aid win, and refuses the others", async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        caller().agents.create({ aid: "raced", name: `Racer ${i}` }),
      ),
    );
    const won = outcomes.filter((o) => o.status === "fulfilled");
    expect(won).toHaveLength(1);
    for (const outcome of outcomes.filter((o) => o.status === "rejected"))
      expect(await problemOf(Promise.reject(outcome.reason))).toMatchObject({
        status: 409,
        code: "agent_exists",
      });
    const winner = (won[0] as PromiseFulfilledResult<{ name: string }>).value.name;
    expect((await caller().agents.get({ aid: "raced" })).name).toBe(winner);
  });

  it("pages through agents in aid order with an opaque cursor", async () => {
    const aids = Array.from({ length: 25 }, (_, i) => `agent-${String(i).padStart(2, "0")}`);
    for (const aid of [...aids].reverse()) await caller().agents.upsert({ aid });

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await caller().agents.list({ limit: 10, cursor });
      seen.push(...page.agents.map((a) => a.aid));
      cursor = page.next_cursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(aids);
  });

  it("searches by aid or name, case-insensitively, with wildcards taken literally", async () => {
    await caller().agents.upsert({ aid: "alpha", name: "Weather Desk" });
    await caller().agents.upsert({ aid: "beta", name: "100% Sales" });
    await caller().agents.upsert({ aid: "weather-two", name: "Second" });
    const found = async (q: string) => (await caller().agents.list({ q })).agents.map((a) => a.aid);
    expect(await found("WEATHER")).toEqual(["alpha", "weather-two"]);
    expect(await found("0%")).toEqual(["beta"]);
    expect(await found("%")).toEqual(["beta"]);
    expect(await found("_")).toEqual([]);
  });

  it("refuses a cursor it did not give out", async () => {
    expect(await problemOf(caller().agents.list({ cursor: "not-a-cursor" }))).toMatchObject({
      status: 400,
      code: "invalid_cursor",
    });
  });

  it("lists effective counts: a day or month that has rolled over shows 0", async () => {
    await caller().agents.upsert({
      aid: "counter",
      autonomous_prompt: "Report.",
      quota: { message_limit_daily: 10 },
    });
    for (let i = 0; i < 3; i++) await caller().chat.send({ aid: "counter", q: `${i}` });
    await caller().runs.runNow({ aid: "counter" });

    const quotaAt = async (iso: string) => {
      clock.set(iso);
      return (await caller().agents.list({})).agents[0]?.quota;
    };
    expect(await quotaAt("2026-11-21T23:59:59Z")).toMatchObject({
      message_count_daily: 3,
      message_count_monthly: 3,
      message_count_total: 3,
      autonomous_count_monthly: 1,
      last_message_at: "2026-11-21T10:00:00.000Z",
    });
    expect(await quotaAt("2026-11-22T00:00:00Z")).toMatchObject({
      message_count_daily: 0,
      message_count_monthly: 3,
    });
    expect(await quotaAt("2026-12-01T00:00:00Z")).toMatchObject({
      message_count_daily: 0,
      message_count_monthly: 0,
      message_count_total: 3,
      autonomous_count_monthly: 0,
      autonomous_count_total: 1,
    });
  });

  it("reads one agent, and says not found for an unknown one", async () => {
    await caller().agents.upsert({ aid: "known" });
    expect((await caller().agents.get({ aid: "known" })).aid).toBe("known");
    expect(await problemOf(caller().agents.get({ aid: "unknown" }))).toMatchObject({
      status: 404,
      code: "agent_not_found",
      detail: "Agent 'unknown' not found.",
    });
  });

  it("deletes an agent with its threads and messages, also those stored while it is deleted", async () => {
    const messagesOf = async (aid: string) =>
      (
        await testDatabase()
          .db.select({ n: sql<number>`count(*)::int` })
          .from(chatMessages)
          .where(eq(chatMessages.aid, aid))
      )[0]?.n;
    await caller().agents.upsert({ aid: "kept" });
    await caller().chat.send({ aid: "kept", q: "stays" });
    await caller().agents.upsert({ aid: "gone" });
    await caller().chat.send({ aid: "gone", q: "first" });
    // Chats in flight while the agent is deleted: each is stored whole before the delete, or not.
    const chats = Array.from({ length: 20 }, (_, i) =>
      caller()
        .chat.send({ aid: "gone", q: `q${i}`, chat_id: `t${i}` })
        .then(
          () => "stored",
          async (error: unknown) => (await problemOf(Promise.reject(error))).code,
        ),
    );
    // And one whose use is held (its model still answering): its reservation goes with the agent.
    const held = await openChat(
      { db: testDatabase().db, clock },
      { aid: "gone", caller: { kind: "admin" }, chatId: "held", inputChars: 1 },
      { historyMessages: 20, historyMaxChars: 10_000 },
    );
    expect(held.outcome).toBe("opened");
    await caller().agents.delete({ aid: "gone" });
    expect(
      await testDatabase()
        .db.select()
        .from(chatReservations)
        .where(eq(chatReservations.aid, "gone")),
    ).toEqual([]);
    for (const outcome of await Promise.all(chats))
      expect(["stored", "agent_not_found"]).toContain(outcome);
    expect(await messagesOf("gone")).toBe(0);
    expect(await messagesOf("kept")).toBe(2);
  });

  it("reports a healthy database", async () => {
    expect(await caller().health.check()).toMatchObject({ status: "healthy", database: "ok" });
  });
});
