import { describe, expect, it } from "vitest";
import { createDatabase } from "@/db/client";
import { agentQuotas } from "@/db/schema";
import { openChat } from "@/server/chat";
import { fixedClock } from "@/server/clock";
import { releaseMessage } from "@/server/quota";
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
    const [row] = await testDatabase().db.select().from(agentQuotas);
    if (!row) throw new Error("no quota row");
    return row;
  };
  /** A chat's opening statement, as chat runs it: the use reserved, or refused by a limit. */
  const openingOf = (aid: string) =>
    openChat(
      { db: testDatabase().db, clock },
      { aid, caller: { kind: "admin" }, chatId: "default" },
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
        if (i % 2 === 0) await releaseMessage(testDatabase().db, opening.reservationId);
        return i % 2 === 0 ? 0 : 1;
      }),
    );
    const kept = outcomes.reduce<number>((sum, n) => sum + n, 0);
    expect(kept).toBe(100);
    expect(await storedRow()).toMatchObject({ messageCountDaily: 100, messageCountTotal: 100 });
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
