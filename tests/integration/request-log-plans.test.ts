import { type SQL, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import {
  breakdownStatement,
  listRequests,
  listRequestsInputSchema,
  requestBreakdownInputSchema,
  requestsPage,
  withCustomPlans,
} from "@/server/request-log";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";
import type { PlanNode } from "../helpers/generic-plan";

const END = Date.parse("2026-11-24T00:00:00Z");
const DAY = 86_400_000;

/**
 * 60,000 entries over 14 days, skewed as a busy service's are: 40 agents (the first takes a
 * seventh), 90% replies, callers by the thousand, and one caller with three entries.
 */
async function seed(db: Db) {
  await db.execute(sql`
    INSERT INTO request_log (started_at, via, aid, caller, chat_id, status, code, latency_ms,
      model, input_tokens, output_tokens)
    SELECT ${new Date(END - 14 * DAY).toISOString()}::timestamptz
        + i * interval '20160 milliseconds', 'chat',
      'agent-' || (1 + floor(40 * r1 * r1)::int), 'addr:' || (floor(r3 * 3000)::int),
      'default', CASE WHEN r2 < 0.9 THEN 200 WHEN r2 < 0.95 THEN 429 ELSE 404 END,
      CASE WHEN r2 >= 0.9 THEN 'refused' END, 1, 'm', 10, 5
    FROM (SELECT i, random() AS r1, random() AS r2, random() AS r3
      FROM generate_series(1, 60000) AS i) AS draws`);
  await db.execute(sql`
    INSERT INTO request_log (started_at, via, aid, caller, chat_id, status, code, latency_ms)
    SELECT ${new Date(END - 10 * DAY).toISOString()}::timestamptz + i * interval '1 day',
      'chat', 'agent-3', 'addr:rare', 'default', 401, 'key_required', 1
    FROM generate_series(1, 3) AS i`);
  await db.execute(sql`ANALYZE request_log`);
  await db.execute(sql`ANALYZE request_log_hours`);
  await db.execute(sql`ANALYZE request_log_days`);
}

/** The plan PostgreSQL makes for the statement with its values, as the service asks for. */
async function planOf(db: Db, statement: SQL): Promise<PlanNode[]> {
  const explained = await withCustomPlans(db, async (planned) =>
    rowsOf<Record<string, unknown>>(await planned.execute(sql`EXPLAIN (FORMAT JSON) ${statement}`)),
  );
  const json = Object.values(explained[0] ?? {})[0];
  const plan = (typeof json === "string" ? JSON.parse(json) : json) as { Plan: PlanNode }[];
  const nodes: PlanNode[] = [];
  const visit = (node: PlanNode) => {
    nodes.push(node);
    for (const child of node.Plans ?? []) visit(child);
  };
  for (const entry of plan) visit(entry.Plan);
  return nodes;
}

/** How a plan reads request_log: the indexes it walks (in order, or as a bitmap), or a scan. */
const readsOf = (nodes: PlanNode[]) =>
  nodes
    .filter(
      (node) =>
        (node["Relation Name"] === "request_log" && node["Node Type"] !== "Bitmap Heap Scan") ||
        (node["Node Type"] === "Bitmap Index Scan" &&
          /^request_log_(?!hours|days)/.test(node["Index Name"] ?? "")),
    )
    .map((node) => node["Index Name"] ?? node["Node Type"]);

/**
 * The admin's reads of the request log find their entries by index, however rare they are:
 * a page of a filter reads that filter's index in order (no scan of the table, no sort of
 * everything it matched), and the breakdown reads entries only for the minutes at its ends.
 * BENCHMARKS.md has the times at 10 M entries.
 */
describe.each(DATABASE_KINDS)("the plans of the request log's reads on %s", (kind) => {
  const testDatabase = useTestDatabase(kind);

  it("reads each filter of a page by its index", async () => {
    const { db } = testDatabase();
    await seed(db);
    const page = async (query: Record<string, unknown>) => {
      const input = listRequestsInputSchema.parse({ limit: 50, ...query });
      return readsOf(await planOf(db, requestsPage(db, input, undefined).getSQL()));
    };
    expect(await page({})).toEqual(["request_log_recent"]);
    expect(await page({ aid: "agent-40" })).toEqual(["request_log_by_agent"]);
    expect(await page({ caller: "addr:rare" })).toEqual(["request_log_by_caller"]);
    expect(await page({ status: 401 })).toEqual(["request_log_by_status"]);
    expect(await page({ status: "failed" })).toEqual(["request_log_failed"]);
    expect(await page({ aid: "agent-40", status: "failed" })).toEqual(["request_log_agent_failed"]);
    expect(await page({ caller: "addr:rare", aid: "agent-1" })).toEqual(["request_log_by_caller"]);
    const hour = new Date(END - 7 * DAY).toISOString();
    expect(
      await page({ from: hour, to: new Date(END - 7 * DAY + 3_600_000).toISOString() }),
    ).toEqual(["request_log_recent"]);
    // And a page after the first, by its cursor.
    const first = await listRequests({ db }, listRequestsInputSchema.parse({ aid: "agent-2" }));
    expect(first.next_cursor).not.toBeNull();
  });

  it("sums the breakdown, reading entries only at its ends, by their index", async () => {
    const { db } = testDatabase();
    await seed(db);
    const breakdown = async (query: Record<string, unknown>) =>
      readsOf(await planOf(db, breakdownStatement(requestBreakdownInputSchema.parse(query))));
    // Whole days and hours: no entry read.
    expect(await breakdown({ by: "model" })).toEqual([]);
    expect(await breakdown({ by: "key", from: new Date(END - 5 * DAY).toISOString() })).toEqual([]);
    // Ends inside hours: the entries of those minutes, by time (or by agent and time).
    const from = new Date(END - 5 * DAY + 17 * 60_000).toISOString();
    const to = new Date(END - DAY + 41 * 60_000).toISOString();
    for (const read of await breakdown({ by: "key", from, to }))
      expect(read).toBe("request_log_recent");
    for (const read of await breakdown({ by: "model", aid: "agent-1", from, to }))
      expect(read).toMatch(/^request_log_(recent|by_agent)$/);
  });
});
