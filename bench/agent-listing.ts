import { performance } from "node:perf_hooks";
import { sql } from "drizzle-orm";
import { createDatabase } from "@/db/client";
import { rowsOf } from "@/db/rows";
import type { ListAgentsQuery } from "@/server/agents";
import { listAgents } from "@/server/agents";
import { systemClock } from "@/server/kit/clock";
import { createThrowawayDatabase } from "../tests/helpers/throwaway-postgres";

/**
 * What a page of the agents listing costs in each order and filter, on PostgreSQL with many
 * agents: `DATABASE_URL=postgres://… npx tsx bench/agent-listing.ts [agents]` (default 100,000).
 * It makes a throwaway database on that server, seeds it in SQL (varied quotas, activity, names,
 * a few autonomous agents), times each listing shape (median of 30 calls through listAgents, after every shape has run 5 times),
 * and prints the plan of each query (EXPLAIN ANALYZE), taken from drizzle's own SQL.
 */

const AGENTS = Number(process.argv[2] ?? 100_000);
const serverUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

const SHAPES: [string, Partial<ListAgentsQuery>][] = [
  ["aid (the common path)", {}],
  ["aid, with total", { include_total: true }],
  ["aid, page 2", {}],
  ["aid, search", { q: "agent-0042" }],
  ["name asc", { sort: "name" }],
  ["name desc, page 2", { sort: "name", order: "desc" }],
  ["quota desc", { sort: "quota" }],
  ["activity desc", { sort: "activity" }],
  ["filter near, with total", { quota: "near", include_total: true }],
  ["filter autonomous on", { autonomous: "on" }],
];

async function main() {
  const throwaway = await createThrowawayDatabase(serverUrl, "agent_listing_bench");
  const database = createDatabase({ kind: "postgres", url: throwaway.url, maxConnections: 2 });
  try {
    await database.migrate();
    await seed(database.db);
    const ctx = { db: database.db, clock: systemClock };
    const inputs: [string, ListAgentsQuery][] = [];
    for (const [label, shape] of SHAPES) {
      const input: ListAgentsQuery = { limit: 100, ...shape };
      if (label.includes("page 2")) input.cursor = (await listAgents(ctx, input)).next_cursor ?? "";
      inputs.push([label, input]);
    }
    // Every shape runs a few times before any is timed: the first queries after seeding pay
    // for caches and plans that later ones do not.
    for (let round = 0; round < 5; round++)
      for (const [, input] of inputs) await listAgents(ctx, input);
    for (const [label, input] of inputs) {
      const times: number[] = [];
      for (let i = 0; i < 30; i++) {
        const started = performance.now();
        await listAgents(ctx, input);
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      console.info(`${label.padEnd(28)} median ${(times[15] ?? 0).toFixed(2)} ms`);
    }
    await explainAll(throwaway.url);
  } finally {
    await database.close();
    await throwaway.drop();
  }
}

async function seed(db: ReturnType<typeof createDatabase>["db"]) {
  const started = performance.now();
  await db.execute(sql`
    INSERT INTO agents (aid, name, autonomous_enabled, autonomous_prompt, created_at, updated_at)
    SELECT 'agent-' || lpad(i::text, 6, '0'), 'Agent ' || md5(i::text), i % 20000 = 0,
      CASE WHEN i % 20000 = 0 THEN 'Report.' END, now(), now()
    FROM generate_series(1, ${AGENTS}) AS i`);
  await db.execute(sql`
    INSERT INTO agent_quotas (aid, message_count_total, message_limit_daily, message_count_daily,
      message_day, message_month, autonomous_month, message_limit_monthly, message_count_monthly,
      last_message_at)
    SELECT 'agent-' || lpad(i::text, 6, '0'), i % 500, 1000, i % 1100, current_date,
      date_trunc('month', current_date)::date, date_trunc('month', current_date)::date, 10000,
      i % 9000, CASE WHEN i % 3 = 0 THEN now() - (i || ' seconds')::interval END
    FROM generate_series(1, ${AGENTS}) AS i`);
  // Token counters for the agents that have had a reply stored (half of them), some with a
  // daily budget: the quota order and filter read them too (agent_quota_view).
  await db.execute(sql`
    INSERT INTO agent_token_usage (aid, input_tokens_total, output_tokens_total,
      input_tokens_daily, output_tokens_daily, token_day, holds_settled)
    SELECT 'agent-' || lpad(i::text, 6, '0'), i * 10, i * 5, i % 700, i % 300, current_date, i % 500
    FROM generate_series(1, ${AGENTS}) AS i WHERE i % 2 = 0`);
  // Every hold ended (the holds taken equal those settled; none for agents without a row).
  await db.execute(sql`
    UPDATE agent_quotas SET token_holds = CASE WHEN message_count_total % 2 = 0
        THEN message_count_total ELSE 0 END,
      token_limit_daily = CASE WHEN aid LIKE '%7' THEN 1200 END`);
  await db.execute(sql`VACUUM ANALYZE agents`);
  await db.execute(sql`VACUUM ANALYZE agent_quotas`);
  await db.execute(sql`VACUUM ANALYZE agent_token_usage`);
  console.info(`seeded ${AGENTS} agents in ${(performance.now() - started).toFixed(0)} ms`);
}

/** EXPLAIN ANALYZE of each shape's statements, caught from the driver as they run. */
async function explainAll(url: string) {
  const captured: { query: string; params: unknown[] }[] = [];
  const { drizzle } = await import("drizzle-orm/postgres-js");
  const postgres = (await import("postgres")).default;
  const schema = await import("@/db/schema");
  const client = postgres(url, { max: 1, onnotice: () => {} });
  const db = drizzle(client, {
    schema,
    casing: "snake_case",
    logger: { logQuery: (query, params) => captured.push({ query, params }) },
  });
  try {
    for (const [label, shape] of SHAPES) {
      captured.length = 0;
      const input: ListAgentsQuery = { limit: 100, ...shape };
      if (label.includes("page 2")) {
        const first = await listAgents({ db: db as never, clock: systemClock }, input);
        input.cursor = first.next_cursor ?? undefined;
        captured.length = 0;
      }
      await listAgents({ db: db as never, clock: systemClock }, input);
      for (const { query, params } of captured) {
        const plan = rowsOf<{ "QUERY PLAN": string }>(
          await client.unsafe(`EXPLAIN (ANALYZE, BUFFERS) ${query}`, params as never[]),
        );
        console.info(`\n== ${label}\n${plan.map((row) => row["QUERY PLAN"]).join("\n")}`);
      }
    }
  } finally {
    await client.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
