import { describe, expect, it } from "vitest";
import { createDatabase } from "@/db/client";
import { agentQuotas } from "@/db/schema";
import { fixedClock } from "@/server/clock";
import { consumeQuota, refundQuota } from "@/server/quota";
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

  it("200 parallel consumes against a limit of 50 give exactly 50 successes", async () => {
    await callerFor(testDatabase().db, { clock }).agents.upsert({
      aid: "hot",
      quota: { message_limit_daily: 50, message_limit_monthly: null, message_limit_total: null },
    });
    const results = await Promise.all(
      Array.from({ length: 200 }, () =>
        consumeQuota({ db: testDatabase().db, clock }, "hot", "message"),
      ),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(50);
    expect(results.filter((r) => !r.ok && r.exceeded?.period === "daily")).toHaveLength(150);
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
    const results = await Promise.all(
      Array.from({ length: 120 }, () =>
        consumeQuota({ db: testDatabase().db, clock }, "three", "message"),
      ),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(30);
    expect(await storedRow()).toMatchObject({ messageCountMonthly: 30, messageCountTotal: 30 });
  });

  it("consumes and refunds racing each other lose no count", async () => {
    await callerFor(testDatabase().db, { clock }).agents.upsert({
      aid: "churn",
      quota: { message_limit_daily: 1000 },
    });
    // Each task takes one use and, every other time, gives it back (a failed model call).
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const result = await consumeQuota({ db: testDatabase().db, clock }, "churn", "message");
        if (!result.ok) throw new Error("unexpected refusal");
        if (i % 2 === 0) await refundQuota({ db: testDatabase().db }, result.reservation);
        return i % 2 === 0 ? 0 : 1;
      }),
    );
    const kept = outcomes.reduce<number>((sum, n) => sum + n, 0);
    expect(kept).toBe(100);
    expect(await storedRow()).toMatchObject({ messageCountDaily: 100, messageCountTotal: 100 });
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
