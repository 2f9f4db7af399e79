import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDatabase } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { agentQuotaView } from "@/db/schema";
import { openChat } from "@/server/chat";
import { fixedClock } from "@/server/kit/clock";
import { releaseMessage, settleMessage } from "@/server/quota";
import { storeExchange } from "@/server/threads";
import { callerFor } from "../helpers/context";
import {
  createThrowawayPostgres,
  TEST_DATABASE_URL,
  type TestDatabase,
  useTestDatabase,
} from "../helpers/databases";

/** Many real connections racing on one PostgreSQL server: the quota must hold exactly. */
describe.skipIf(!TEST_DATABASE_URL)("concurrency on real PostgreSQL", () => {
  const clock = fixedClock("2026-11-21T12:00:00Z");
  const testDatabase = useTestDatabase("postgres", { maxConnections: 50 });

  const storedRow = async () => {
    const [row] = await testDatabase().db.select().from(agentQuotaView);
    if (!row) throw new Error("no quota row");
    return row;
  };
  /** A chat's opening statement, as chat runs it: the use reserved, or refused by a limit. */
  const openingOf = (aid: string) =>
    openChat(
      { db: testDatabase().db, clock },
      { aid, caller: { kind: "admin" }, chatId: "default", inputChars: 1 },
      { historyMessages: 20, historyMaxChars: 10_000 },
    );

  it("200 parallel chat openings against a limit of 50 give exactly 50 successes", async () => {
    await callerFor(testDatabase().db, { clock }).agents.upsert({
      aid: "hot",
      quota: { message_limit_daily: 50, message_limit_monthly: null, message_limit_total: null },
    });
    const results = await Promise.all(Array.from({ length: 200 }, () => openingOf("hot")));
    expect(results.filter((r) => r.outcome === "opened")).toHaveLength(50);
    expect(
      results.filter((r) => r.outcome === "quota_exceeded" && r.exceeded.period === "daily"),
    ).toHaveLength(150);
    expect(await storedRow()).toMatchObject({
      messageCountDaily: 50,
      messageCountMonthly: 50,
      messageCountTotal: 50,
    });
  });

  it("the tightest of three limits holds, whichever it is", async () => {
    await callerFor(testDatabase().db, { clock }).agents.upsert({
      aid: "three",
      quota: { message_limit_daily: 40, message_limit_monthly: 30, message_limit_total: 35 },
    });
    const results = await Promise.all(Array.from({ length: 120 }, () => openingOf("three")));
    expect(results.filter((r) => r.outcome === "opened")).toHaveLength(30);
    expect(await storedRow()).toMatchObject({ messageCountMonthly: 30, messageCountTotal: 30 });
  });

  it("reserves and releases racing each other lose no count", async () => {
    await callerFor(testDatabase().db, { clock }).agents.upsert({
      aid: "churn",
      quota: { message_limit_daily: 1000 },
    });
    // Each task opens a chat and, every other time, releases its use (a failed model call).
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const opening = await openingOf("churn");
        if (opening.outcome !== "opened") throw new Error("unexpected refusal");
        if (i % 2 === 0)
          await releaseMessage(testDatabase().db, {
            aid: "churn",
            reservationId: opening.reservationId,
          });
        return i % 2 === 0 ? 0 : 1;
      }),
    );
    const kept = outcomes.reduce<number>((sum, n) => sum + n, 0);
    expect(kept).toBe(100);
    expect(await storedRow()).toMatchObject({ messageCountDaily: 100, messageCountTotal: 100 });
  });

  it("a reserve that waited for the quota row sees the replies stored while it waited", async () => {
    // A reply's tokens are stored without taking the quota row (agent_token_usage), so a chat can
    // be stored while a reserve waits for that row. The reserve's budget check must then read
    // the stored tokens as of when it has the row, not as of when its statement began: here one
    // reply of 150 tokens uses up a budget of 100 during the wait, and the waiting chat must be
    // refused (read with the statement's snapshot it would see 0 tokens and 1 hold, and start).
    const db = testDatabase().db;
    await callerFor(db, { clock }).agents.upsert({
      aid: "budgeted",
      rate_limit_rpm: null,
      quota: { token_limit_daily: 100 },
    });
    const inFlight = await openingOf("budgeted");
    if (inFlight.outcome !== "opened") throw new Error("the first chat was not opened");
    const waiting = { locks: 0 };
    const waiter = await db.transaction(async (tx) => {
      // Another statement holds the quota row (as a reserve or a release does while it commits).
      await tx.execute(
        sql`UPDATE agent_quotas SET last_message_at = last_message_at WHERE aid = 'budgeted'`,
      );
      const opening = openingOf("budgeted");
      for (let tries = 0; waiting.locks === 0 && tries < 500; tries++) {
        const [row] = rowsOf<{ n: number }>(
          await db.execute(sql`SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'`),
        );
        waiting.locks = row?.n ?? 0;
        if (waiting.locks === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const { stored } = await storeExchange(
        db,
        {
          aid: "budgeted",
          caller: "admin",
          chatId: "default",
          question: "q",
          reply: "a long reply",
          model: "gpt-4o-mini",
          usage: { input_tokens: 100, output_tokens: 50, estimated: false },
          toolCalls: [],
          askedAt: clock.now(),
          answeredAt: clock.now(),
        },
        settleMessage(inFlight.reservationId),
        "message",
      );
      expect(stored).toBe(true);
      // Wrapped: a promise returned as is would be waited for before the commit it waits on.
      return { opening };
    });
    expect(waiting.locks).toBe(1);
    const refused = await waiter.opening;
    expect(refused).toMatchObject({
      outcome: "quota_exceeded",
      exceeded: { limitField: "token_limit_daily" },
    });
    expect(await storedRow()).toMatchObject({
      inputTokensDaily: 100,
      outputTokensDaily: 50,
      messageCountDaily: 1,
      tokenHolds: 0,
    });
  });

  it("100 parallel runs started by the run's claim against a limit of 20 start exactly 20", async () => {
    const admin = callerFor(testDatabase().db, { clock });
    await admin.agents.upsert({
      aid: "busy",
      autonomous_prompt: "Report.",
      quota: { autonomous_limit_monthly: 20 },
    });
    const runs = await Promise.all(
      Array.from({ length: 100 }, () => admin.runs.runNow({ aid: "busy" })),
    );
    expect(runs.filter((run) => run.outcome === "succeeded")).toHaveLength(20);
    expect(
      runs.filter(
        (run) => run.outcome === "skipped" && run.error?.startsWith("Monthly autonomous run limit"),
      ),
    ).toHaveLength(80);
    expect(await storedRow()).toMatchObject({
      autonomousCountMonthly: 20,
      autonomousCountTotal: 20,
      tokenHolds: 0,
    });
  });

  it("20 parallel creates of one aid end as one create and 19 updates", async () => {
    const caller = callerFor(testDatabase().db, { clock });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        caller.agents.upsert({ aid: "racer", name: `Racer ${i}` }),
      ),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const listed = await caller.agents.list({});
    expect(listed.agents).toHaveLength(1);
  });

  it("instances starting together migrate once, without errors", async () => {
    const throwaway = await createThrowawayPostgres();
    const instances = Array.from({ length: 4 }, () =>
      createDatabase({ kind: "postgres", url: throwaway.url }),
    );
    try {
      await Promise.all(instances.map((instance) => instance.migrate()));
      await Promise.all(instances.map((instance) => instance.migrate())); // and again: idempotent
      const [first] = instances;
      await callerFor(first?.db as TestDatabase["db"], { clock }).agents.upsert({
        aid: "after-migrate",
      });
    } finally {
      await Promise.all(instances.map((instance) => instance.close()));
      await throwaway.drop();
    }
  });
});
