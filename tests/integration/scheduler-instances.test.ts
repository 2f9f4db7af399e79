import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase, type Database } from "@/db/client";
import { autonomousRuns } from "@/db/schema";
import { fixedClock } from "@/server/kit/clock";
import { createModelRuntime } from "@/server/model-call";
import { Scheduler } from "@/server/runs";
import { callerFor, testConfig } from "../helpers/context";
import { createThrowawayPostgres, TEST_DATABASE_URL } from "../helpers/database-kinds";

const START = "2026-11-21T10:00:00Z";
const MINUTE = 60_000;
const SIMULATED_MINUTES = 60;
const AGENTS = 40;
/** Agents on a cron schedule besides: every 2 or 3 minutes, in two time zones. */
const CRON_AGENTS = 10;

/** Two schedulers, each with its own connection pool, racing over one PostgreSQL. */
describe.skipIf(!TEST_DATABASE_URL)("two scheduler instances on one PostgreSQL", () => {
  let throwaway: Awaited<ReturnType<typeof createThrowawayPostgres>>;
  let instances: Database[];
  const clock = fixedClock(START);

  beforeAll(async () => {
    throwaway = await createThrowawayPostgres();
    instances = [0, 1].map(() =>
      createDatabase({ kind: "postgres", url: throwaway.url, maxConnections: 10 }),
    );
    await Promise.all(instances.map((instance) => instance.migrate()));
  });
  afterAll(async () => {
    await Promise.all((instances ?? []).map((instance) => instance.close()));
    await throwaway?.drop();
  });

  it("runs every slot of every agent exactly once, none twice, on an interval or a cron schedule", async () => {
    const [first, second] = instances as [Database, Database];
    const admin = callerFor(first.db, { clock });
    const intervals = Array.from({ length: AGENTS }, (_, i) => (i % 5) + 1); // every 1 to 5 minutes
    for (const [i, minutes] of intervals.entries()) {
      await admin.agents.upsert({
        aid: `agent-${i}`,
        autonomous_enabled: true,
        autonomous_minutes: minutes,
        autonomous_prompt: "Tick.",
        quota: { autonomous_limit_monthly: null },
      });
    }

    const steps = Array.from({ length: CRON_AGENTS }, (_, i) => (i % 2) + 2);
    for (const [i, step] of steps.entries()) {
      await admin.agents.upsert({
        aid: `cron-${i}`,
        autonomous_enabled: true,
        autonomous_cron: `*/${step} * * * *`,
        autonomous_timezone: i % 4 < 2 ? "UTC" : "Asia/Kolkata",
        autonomous_prompt: "Tick.",
        quota: { autonomous_limit_monthly: null },
      });
    }

    const schedulers = [first, second].map(
      (instance) =>
        new Scheduler(
          { db: instance.db, clock, model: createModelRuntime(testConfig()) },
          // Small batches, so the two really interleave their claims within a tick.
          { tickMs: 1000, batchSize: 3, concurrency: 6 },
        ),
    );
    const started = [0, 0];
    for (let minute = 0; minute < SIMULATED_MINUTES; minute++) {
      const counts = await Promise.all(schedulers.map((scheduler) => scheduler.tick()));
      counts.forEach((n, i) => {
        started[i] = (started[i] ?? 0) + n;
      });
      await Promise.all(schedulers.map((scheduler) => scheduler.idle()));
      clock.advance(MINUTE);
    }

    for (const [i, minutes] of intervals.entries()) {
      const runs = await first.db
        .select({ dueAt: autonomousRuns.dueAt, outcome: autonomousRuns.outcome })
        .from(autonomousRuns)
        .where(eq(autonomousRuns.aid, `agent-${i}`));
      const expected = Array.from({ length: SIMULATED_MINUTES / minutes }, (_, slot) =>
        new Date(Date.parse(START) + slot * minutes * MINUTE).toISOString(),
      );
      expect(runs.map((r) => r.dueAt.toISOString()).sort(), `agent-${i}`).toEqual(expected);
      expect(runs.every((r) => r.outcome === "succeeded")).toBe(true);
    }
    // A cron schedule's first occurrence is the first after it was set (10:00): 10:0k, not 10:00.
    let cronRuns = 0;
    for (const [i, step] of steps.entries()) {
      const runs = await first.db
        .select({ dueAt: autonomousRuns.dueAt, outcome: autonomousRuns.outcome })
        .from(autonomousRuns)
        .where(eq(autonomousRuns.aid, `cron-${i}`));
      const expected: string[] = [];
      for (let minute = step; minute < SIMULATED_MINUTES; minute += step)
        expected.push(new Date(Date.parse(START) + minute * MINUTE).toISOString());
      expect(runs.map((r) => r.dueAt.toISOString()).sort(), `cron-${i}`).toEqual(expected);
      expect(runs.every((r) => r.outcome === "succeeded")).toBe(true);
      cronRuns += expected.length;
    }
    const total =
      intervals.reduce((sum, minutes) => sum + SIMULATED_MINUTES / minutes, 0) + cronRuns;
    const [stored] = await first.db.select({ n: count() }).from(autonomousRuns);
    expect(stored?.n).toBe(total);
    expect((started[0] ?? 0) + (started[1] ?? 0)).toBe(total);
    // Both instances took a share of the work.
    expect(started[0]).toBeGreaterThan(0);
    expect(started[1]).toBeGreaterThan(0);
  });
});
