import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/rows";
import { fixedClock } from "@/server/kit/clock";
import { createModelRuntime, type ModelRuntime } from "@/server/model-call";
import { callerFor, problemOf, testConfig } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";
import { repliesAfter } from "../helpers/fake-openai";
import { useFakeOpenAi } from "../helpers/use-fake-openai";

/**
 * Tokens, budgets, prices and usage over time, with a fake endpoint whose `usage` is known: what
 * it reports must come out exactly in the counters, the series and the costs.
 */
describe.each(DATABASE_KINDS)("usage and cost on %s", (kind) => {
  const clock = fixedClock("2026-11-21T20:30:00Z");
  const testDatabase = useTestDatabase(kind, { clock, start: "2026-11-21T20:30:00Z" });
  const fakeEndpoint = useFakeOpenAi();

  const runtime = (): ModelRuntime =>
    createModelRuntime(
      testConfig({
        LLM_BASE_URL: fakeEndpoint().baseUrl,
        LLM_API_KEY: "sk-test",
        LLM_MAX_RETRIES: "0",
        LLM_MODEL: "priced-model",
      }),
    );
  const admin = (model?: ModelRuntime) => callerFor(testDatabase().db, { clock, model });
  const anonymous = (model?: ModelRuntime) =>
    callerFor(testDatabase().db, { clock, model, admin: false });
  const agent = (aid: string, fields: Record<string, unknown> = {}) =>
    admin().agents.upsert({ aid, ...fields } as { aid: string });
  const quotaOf = async (aid: string) => (await admin().agents.get({ aid })).quota;
  /** A reply whose provider reports `prompt` tokens in and `completion` out. */
  const counted = (prompt: number, completion: number) => ({
    kind: "reply" as const,
    text: "Counted.",
    usage: { prompt_tokens: prompt, completion_tokens: completion },
  });
  const replyUsing = (prompt: number, completion: number) =>
    fakeEndpoint().behave(counted(prompt, completion));

  it("counts the reported tokens exactly in the counters, the series and the costs", async () => {
    const model = runtime();
    await admin().prices.set({
      model: "priced-model",
      input_per_million: 2,
      output_per_million: 10,
    });
    await agent("counted", {
      autonomous_enabled: true,
      autonomous_prompt: "Report.",
      rate_limit_rpm: null,
    });
    replyUsing(1000, 200);
    const sent = await admin(model).chat.send({ aid: "counted", q: "one" });
    // 1000 × 2 / 1e6 + 200 × 10 / 1e6
    expect(sent.usage).toEqual({
      input_tokens: 1000,
      output_tokens: 200,
      estimated: false,
      cost: 0.004,
    });
    replyUsing(3000, 500);
    const events = [];
    for await (const event of await admin(model).chat.stream({ aid: "counted", q: "two" }))
      events.push(event);
    expect(events.at(-1)).toMatchObject({ type: "done", usage: { cost: 0.011 } });
    replyUsing(100, 50);
    const run = await admin(model).runs.runNow({ aid: "counted" });
    expect(run.usage).toEqual({
      input_tokens: 100,
      output_tokens: 50,
      estimated: false,
      cost: 0.0007,
    });

    const quota = await quotaOf("counted");
    for (const period of ["total", "monthly", "daily"] as const) {
      expect(quota[`input_tokens_${period}`]).toBe(4100);
      expect(quota[`output_tokens_${period}`]).toBe(750);
      expect(quota[`cost_${period}`]).toBeCloseTo(0.0157, 10);
    }
    const { messages } = await admin().threads.messages({ aid: "counted", chat_id: "default" });
    expect(messages.map((m) => m.usage?.cost ?? null)).toEqual([null, 0.004, null, 0.011]);

    const usage = await admin().usage.agent({ aid: "counted", granularity: "hour" });
    expect(usage.points).toHaveLength(24);
    expect(usage.points.at(-1)).toMatchObject({
      start: "2026-11-21T20:00:00.000Z",
      messages: 2,
      runs: 1,
      input_tokens: 4100,
      output_tokens: 750,
      unpriced: 0,
    });
    expect(usage.totals.cost).toBeCloseTo(0.0157, 10);
    const all = await admin().usage.all({ granularity: "day" });
    expect(all.points).toHaveLength(30);
    expect(all.totals).toMatchObject({ messages: 2, runs: 1, input_tokens: 4100 });
    expect(all.top_agents).toMatchObject([{ aid: "counted", input_tokens: 4100 }]);
  });

  it("gives an unpriced model's replies a null cost, not 0", async () => {
    const model = runtime();
    await agent("free", { model: "unknown-model" });
    replyUsing(10, 5);
    const sent = await admin(model).chat.send({ aid: "free", q: "hi" });
    expect(sent.usage.cost).toBeNull();
    const usage = await admin().usage.agent({ aid: "free", granularity: "hour" });
    expect(usage.totals).toMatchObject({ messages: 1, unpriced: 1, cost: null });
    // A price set later prices what comes after; the stored reply keeps its null.
    await admin().prices.set({
      model: "unknown-model",
      input_per_million: 1,
      output_per_million: 1,
    });
    await admin(model).chat.send({ aid: "free", q: "again" });
    const after = await admin().usage.agent({ aid: "free", granularity: "hour" });
    expect(after.totals).toMatchObject({ messages: 2, unpriced: 1, cost: 0.000015 });
    await admin().prices.delete({ model: "unknown-model" });
    expect((await admin().prices.list()).prices).toEqual([]);
    expect(await problemOf(admin().prices.delete({ model: "unknown-model" }))).toMatchObject({
      status: 404,
    });
  });

  it("refuses exactly at a token budget, however many chats start at once", async () => {
    const model = runtime();
    // Each chat of the burst holds its input's estimate until it ends: "You are budget." (15
    // characters), the six exchanges before it ("warm-0" and "Counted.", 14 characters each) and
    // its question (7 to 9): 106 to 108 characters, 27 tokens at 4 characters a token.
    const hold = Math.ceil((15 + 6 * 14 + 8) / 4);
    expect(hold).toBe(27);
    await agent("budget", {
      rate_limit_rpm: null,
      quota: {
        token_limit_daily: 90 + 10 * hold,
        message_limit_daily: null,
        message_limit_monthly: null,
      },
    });
    replyUsing(10, 5);
    // 6 × 15 = 90 tokens used: 270 left, so 10 more may start, each holding 27 until it ends.
    for (let i = 0; i < 6; i++) await admin(model).chat.send({ aid: "budget", q: `warm-${i}` });
    // No reply comes back before the tenth call has reached the model, and each then counts
    // more (35) than it held: a reply stored sooner would spend the budget, and one counting
    // less would give some of it back, so how many started would depend on the machine.
    fakeEndpoint().behaveBy(repliesAfter(10, counted(30, 5)));
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        admin(model)
          .chat.send({ aid: "budget", q: `burst-${i}` })
          .then(
            () => 200,
            async (error: unknown) => (await problemOf(Promise.reject(error))).status,
          ),
      ),
    );
    expect(results.filter((status) => status === 200)).toHaveLength(10);
    expect(results.filter((status) => status === 429)).toHaveLength(190);
    // The replies that crossed the limit were delivered and counted, exactly.
    const quota = await quotaOf("budget");
    expect(quota.input_tokens_daily + quota.output_tokens_daily).toBe(6 * 15 + 10 * 35);
    expect(quota.message_count_daily).toBe(16);
    const refused = await problemOf(admin(model).chat.send({ aid: "budget", q: "after" }));
    expect(refused).toMatchObject({
      status: 429,
      code: "quota_exceeded",
      limit: "token_limit_daily",
      retry_after_s: 3.5 * 3600,
    });
    expect(refused.detail).toMatch(/Daily token limit reached for agent 'budget': 360 tokens/);
    const usage = await admin().usage.agent({ aid: "budget", granularity: "hour" });
    expect(usage.totals).toMatchObject({ messages: 16, refused_quota: 191 });
    const holds = rowsOf<{ holds: number }>(
      await testDatabase().db.execute(
        sql`SELECT token_holds::int AS holds FROM agent_quota_view WHERE aid = 'budget'`,
      ),
    );
    expect(holds[0]?.holds).toBe(0);
  });

  it("releases a chat's place in the budget when its reply is not delivered", async () => {
    const model = runtime();
    // Room for one chat's hold: "You are failing." and "x", 17 characters, 5 tokens.
    await agent("failing", { quota: { token_limit_total: 5 } });
    fakeEndpoint().behave({ kind: "error", status: 500 });
    expect(await problemOf(admin(model).chat.send({ aid: "failing", q: "x" }))).toMatchObject({
      status: 502,
    });
    // Had the failed chat kept its hold, the next would not fit in the budget.
    replyUsing(3, 2);
    await admin(model).chat.send({ aid: "failing", q: "y" });
    expect(await problemOf(admin(model).chat.send({ aid: "failing", q: "z" }))).toMatchObject({
      status: 429,
      limit: "token_limit_total",
    });
    expect((await quotaOf("failing")).input_tokens_total).toBe(3);
  });

  it("counts refusals by the rate limit in the agent's hour", async () => {
    const model = runtime();
    await agent("limited", { rate_limit_rpm: 2 });
    const statuses = [];
    for (let i = 0; i < 5; i++)
      statuses.push(
        await anonymous(model)
          .chat.send({ aid: "limited", q: `q${i}` })
          .then(
            () => 200,
            async (error: unknown) => (await problemOf(Promise.reject(error))).code,
          ),
      );
    expect(statuses).toEqual([200, 200, "rate_limited", "rate_limited", "rate_limited"]);
    const usage = await admin().usage.agent({ aid: "limited", granularity: "day" });
    expect(usage.totals).toMatchObject({ messages: 2, refused_rate: 3, refused_quota: 0 });
  });

  it("resets token counters like the message counters, lazily at the UTC day", async () => {
    const model = runtime();
    await agent("daily");
    replyUsing(7, 3);
    await admin(model).chat.send({ aid: "daily", q: "today" });
    clock.set("2026-11-22T00:00:01Z");
    const quota = await quotaOf("daily");
    expect(quota).toMatchObject({
      input_tokens_daily: 0,
      input_tokens_monthly: 7,
      input_tokens_total: 7,
    });
    await admin().agents.resetQuota({ aid: "daily", counters: ["token_total"] });
    expect(await quotaOf("daily")).toMatchObject({ input_tokens_total: 0, cost_total: 0 });
  });

  it("gives the overview's messages from the usage record, which a counter reset leaves alone", async () => {
    const model = runtime();
    await agent("reset-me", { rate_limit_rpm: null });
    await agent("deleted", { rate_limit_rpm: null });
    replyUsing(5, 5);
    // Yesterday's reply counts this month, not today.
    clock.set("2026-11-20T12:00:00Z");
    await admin(model).chat.send({ aid: "reset-me", q: "yesterday" });
    clock.set("2026-11-21T20:30:00Z");
    for (const q of ["one", "two"]) await admin(model).chat.send({ aid: "reset-me", q });
    await admin(model).chat.send({ aid: "deleted", q: "gone with its agent" });
    await admin().agents.resetQuota({ aid: "reset-me" });
    await admin().agents.delete({ aid: "deleted" });

    const overview = await admin().dashboard.overview();
    expect(overview.messages).toEqual({ today: 2, this_month: 3 });
    // The same figure as the usage series' today.
    const series = await admin().usage.all({ granularity: "day" });
    expect(series.points.at(-1)?.messages).toBe(overview.messages.today);
  });

  it("bounds and pages a range, and refuses an empty one", async () => {
    await agent("ranged");
    const page = await admin().usage.agent({
      aid: "ranged",
      granularity: "hour",
      from: "2026-10-01T00:00:00Z",
      to: "2026-11-21T00:00:00Z",
    });
    expect(page.points).toHaveLength(744);
    expect(page.next_from).toBe("2026-11-01T00:00:00.000Z");
    expect(
      await problemOf(
        admin().usage.agent({
          aid: "ranged",
          from: "2026-11-21T00:00:00Z",
          to: "2026-11-20T00:00:00Z",
        }),
      ),
    ).toMatchObject({ status: 400 });
    expect(await problemOf(admin().usage.agent({ aid: "nobody" }))).toMatchObject({
      status: 404,
    });
    expect(await problemOf(anonymous().usage.all({}))).toMatchObject({ status: 401 });
  });
});
