import { and, eq, lt, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { autonomousRuns, runInFlight } from "@/db/schema";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";
import { genericPlanNodes, insertBareAgent, type PlanNode } from "../helpers/generic-plan";

/**
 * A run ends with `WHERE id = $1 AND outcome = 'running'` (its success, stored with the
 * exchange, and its failure: `runInFlight` in both), and the sweep reads every run still in
 * flight. With statistics
 * taken while nothing ran (the usual case: runs end within seconds), the in-flight index looks
 * tiny; when it was on started_at, PostgreSQL took it for a run's end too and walked every run
 * in flight, and every entry VACUUM had not yet removed, to find one id (BENCHMARKS.md). The
 * plan must find the run by its id.
 */
describe.each(DATABASE_KINDS)("the plans of a run's end and of the sweep on %s", (kind) => {
  const testDatabase = useTestDatabase(kind);

  /** 2,000 ended runs, analysed, then 500 in flight: the statistics say none run. */
  async function seedRuns() {
    const { db } = testDatabase();
    await insertBareAgent(db, "planned");
    await db.execute(sql`
      INSERT INTO autonomous_runs (aid, trigger, due_at, started_at, finished_at, outcome)
      SELECT 'planned', 'manual', now(), now(), now(), 'succeeded' FROM generate_series(1, 2000)`);
    await db.execute(sql`ANALYZE autonomous_runs`);
    await db.execute(sql`
      INSERT INTO autonomous_runs (aid, trigger, due_at, started_at, outcome)
      SELECT 'planned', 'manual', now(), now(), 'running' FROM generate_series(1, 500)`);
  }

  const runReads = (nodes: PlanNode[]) =>
    nodes.filter((node) => node["Relation Name"] === "autonomous_runs");

  it("finds an ending run by its id", async () => {
    await seedRuns();
    const { db } = testDatabase();
    const end = db
      .update(autonomousRuns)
      .set({ outcome: "failed", finishedAt: new Date() })
      .where(and(eq(autonomousRuns.id, 2100), runInFlight))
      .getSQL();
    const reads = runReads(await genericPlanNodes(db, end)).filter(
      (node) => node["Node Type"] !== "ModifyTable",
    );
    expect(reads).toHaveLength(1);
    expect(reads[0]?.["Index Cond"]).toMatch(/^\(id = \$\d+\)$/);
  });

  it("reads the runs in flight from their index, not the table", async () => {
    await seedRuns();
    const { db } = testDatabase();
    const sweep = db
      .select({ id: autonomousRuns.id })
      .from(autonomousRuns)
      .where(and(runInFlight, lt(autonomousRuns.startedAt, new Date())))
      .for("update", { skipLocked: true })
      .getSQL();
    const reads = runReads(await genericPlanNodes(db, sweep)).filter(
      (node) => node["Node Type"] !== "LockRows",
    );
    expect(reads.map((node) => node["Index Name"] ?? node["Node Type"])).toEqual([
      "autonomous_runs_in_flight",
    ]);
  });
});
