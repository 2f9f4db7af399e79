/**
 * `npm run bench`: the service against a minimal baseline (bench/baseline.ts), side by side in
 * one run, on one real PostgreSQL, driven by autocannon. Prints a table and writes
 * bench/results/latest.json. Needs a build (`npm run bench` makes one) and PostgreSQL at
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test; a throwaway database is
 * created on that server and dropped afterwards).
 */
import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import autocannon from "autocannon";
import postgres from "postgres";
import { createDatabase } from "@/db/client";
import { startServer, TEST_ADMIN_KEY } from "../tests/helpers/server";
import { startBaseline } from "./baseline";

const SERVER_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const CONNECTIONS = [1, 16, 64];
const AGENTS = Number(process.env.BENCH_AGENTS ?? 100_000);

type Measure = { rps: number; p50: number; p99: number; non2xx: number; errors: number };

async function measure(
  url: string,
  connections: number,
  headers: Record<string, string> = {},
): Promise<Measure> {
  const result = await autocannon({ url, connections, duration: DURATION_S, headers });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

async function throwawayDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `agent_bench_${randomBytes(4).toString("hex")}`;
  const admin = postgres(SERVER_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const again = postgres(SERVER_URL, { max: 1, onnotice: () => {} });
      await again.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await again.end();
    },
  };
}

async function seed(url: string, agents = AGENTS) {
  const database = createDatabase({ kind: "postgres", url });
  await database.migrate();
  await database.close();
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  await sql`DELETE FROM agents WHERE aid LIKE 'agent-%'`;
  await sql`
    INSERT INTO agents (aid, name, autonomous_enabled, autonomous_minutes, created_at, updated_at)
    SELECT 'agent-' || lpad(i::text, 6, '0'), 'Agent ' || i, false, 60, now(), now()
    FROM generate_series(1, ${agents}) AS i`;
  await sql`
    INSERT INTO agent_quotas (aid, message_day, message_month, autonomous_month)
    SELECT aid, current_date, date_trunc('month', now())::date, date_trunc('month', now())::date
    FROM agents WHERE aid LIKE 'agent-%'`;
  await sql`ANALYZE`;
  await sql.end();
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en", { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function main() {
  const database = await throwawayDatabase();
  console.info(`Seeding ${fmt(AGENTS)} agents…`);
  await seed(database.url);
  const service = await startServer({
    DATABASE_URL: database.url,
    SCHEDULER: "off",
    LLM_MAX_CONCURRENCY: "1000",
  });
  const baseline = await startBaseline(database.url);
  const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}` };
  // The chat agent: no limits, so every request does the whole path (service and baseline alike).
  await fetch(`${service.url}/agents`, {
    method: "POST",
    headers: { ...admin, "content-type": "application/json" },
    body: JSON.stringify({
      aid: "bench-chat",
      quota: { message_limit_total: null, message_limit_monthly: null, message_limit_daily: null },
    }),
  });

  const cases = [
    {
      name: "GET /{aid}/chat (echo)",
      service: `${service.url}/bench-chat/chat?q=hello&chat_id=bench`,
      baseline: `${baseline.url}/bench-chat/chat?q=hello&chat_id=bench-baseline`,
      headers: {},
    },
    {
      name: `GET /agents (page of 100 of ${fmt(AGENTS)})`,
      service: `${service.url}/agents?limit=100`,
      baseline: `${baseline.url}/agents`,
      headers: admin,
    },
    {
      name: "GET /health",
      service: `${service.url}/health`,
      baseline: `${baseline.url}/health`,
      headers: {},
    },
  ];

  const rows: Record<string, unknown>[] = [];
  for (const benchCase of cases) {
    for (const connections of CONNECTIONS) {
      // Warm both up briefly, then measure them one after the other in the same run.
      await measure(benchCase.service, connections, benchCase.headers).catch(() => undefined);
      const s = await measure(benchCase.service, connections, benchCase.headers);
      const b = await measure(benchCase.baseline, connections);
      const row = {
        endpoint: benchCase.name,
        connections,
        service: s,
        baseline: b,
        rps_ratio: s.rps / b.rps,
        p99_ratio: b.p99 > 0 ? s.p99 / b.p99 : null,
      };
      rows.push(row);
      console.info(
        `${benchCase.name.padEnd(36)} c=${String(connections).padStart(2)}  service ${fmt(s.rps).padStart(6)} req/s p50 ${fmt(s.p50, 1)} p99 ${fmt(s.p99, 1)} ms | baseline ${fmt(b.rps).padStart(6)} req/s p50 ${fmt(b.p50, 1)} p99 ${fmt(b.p99, 1)} ms | ratio ${fmt(row.rps_ratio, 2)} (p99 ${row.p99_ratio === null ? "-" : fmt(row.p99_ratio, 2)})${s.non2xx + s.errors + b.non2xx + b.errors > 0 ? `  [non-2xx/errors ${s.non2xx}/${s.errors} vs ${b.non2xx}/${b.errors}]` : ""}`,
      );
    }
  }

  // How cost grows: a page in the middle of 1k, 10k and 100k agents (keyset pagination should keep
  // it flat), and chat on an empty thread against one of 1,000 messages (bounded history).
  const cursorAt = (aid: string) => Buffer.from(JSON.stringify({ a: aid })).toString("base64url");
  const growth: Record<string, unknown>[] = [];
  for (const agents of [1_000, 10_000, 100_000]) {
    await seed(database.url, agents);
    const middle = `agent-${String(agents / 2).padStart(6, "0")}`;
    const page = await measure(
      `${service.url}/agents?limit=100&cursor=${cursorAt(middle)}`,
      1,
      admin,
    );
    growth.push({ series: "GET /agents page", agents, ...page });
    console.info(
      `growth: GET /agents, page of 100 in the middle of ${fmt(agents).padStart(7)} agents: ${fmt(page.rps)} req/s, p50 ${fmt(page.p50, 1)} ms, p99 ${fmt(page.p99, 1)} ms`,
    );
  }
  const sqlForThreads = postgres(database.url, { max: 1, onnotice: () => {} });
  await sqlForThreads`
    INSERT INTO chat_threads (aid, chat_id, message_count, created_at, last_message_at)
    VALUES ('bench-chat', 'long', 1000, now(), now()) ON CONFLICT DO NOTHING`;
  await sqlForThreads`
    INSERT INTO chat_messages (aid, chat_id, role, content, created_at)
    SELECT 'bench-chat', 'long', CASE WHEN i % 2 = 0 THEN 'user' ELSE 'assistant' END, 'message ' || i, now()
    FROM generate_series(1, 1000) AS i`;
  await sqlForThreads.end();
  for (const [label, chatId] of [
    ["empty thread", `fresh-${Date.now()}`],
    ["1,000-message thread", "long"],
  ] as const) {
    // One new thread per measurement would grow as it runs; measure the first seconds of each.
    const result = await measure(`${service.url}/bench-chat/chat?q=hello&chat_id=${chatId}`, 1);
    growth.push({ series: "chat", thread: label, ...result });
    console.info(
      `growth: chat on an ${label}: ${fmt(result.rps)} req/s, p50 ${fmt(result.p50, 1)} ms, p99 ${fmt(result.p99, 1)} ms`,
    );
  }

  const report = {
    date: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      model: os.cpus()[0]?.model,
      memory_gib: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
    },
    duration_s: DURATION_S,
    agents: AGENTS,
    rows,
    growth,
  };
  await mkdir("bench/results", { recursive: true });
  await writeFile("bench/results/latest.json", `${JSON.stringify(report, null, 2)}\n`);
  console.info("Written to bench/results/latest.json");

  await service.stop();
  await baseline.close();
  await database.drop();
}

await main();
