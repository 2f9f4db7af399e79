/**
 * `npm run bench`: the service against a minimal baseline (bench/baseline.ts), side by side in
 * one run, on one real PostgreSQL, driven by autocannon: with the echo model, then with a fake
 * model endpoint (bench/model-rows.ts; `BENCH_ONLY=model` runs only those), then one tool round
 * trip against a direct MCP call (bench/tool-rows.ts; `BENCH_ONLY=tools`), then 1,000 webhook
 * events to a receiver on loopback (bench/webhooks.ts; `BENCH_ONLY=webhooks`); `BENCH_ONLY=echo` runs
 * only the echo chat row (1,000 agents, no soak or growth series), about a minute;
 * `BENCH_ONLY=scheduler` only the scheduler's rows (bench/scheduler.ts); `BENCH_ONLY=request-log`
 * only the request log at 10 M entries (bench/request-log.ts). Prints a table and
 * writes bench/results/latest.json. Needs a build (`npm run bench` makes one) and PostgreSQL at
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test; a throwaway database is
 * created on that server and dropped afterwards).
 */
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import autocannon from "autocannon";
import postgres from "postgres";
import { createDatabase } from "@/db/client";
import { callerHashKey } from "@/server/auth";
import { hashAddress } from "@/server/callers";
import { encodeCursor } from "@/server/pagination";
import { startServer, TEST_ADMIN_KEY } from "../tests/helpers/server";
import { createThrowawayDatabase } from "../tests/helpers/throwaway-postgres";
import { runDatabaseInstructions } from "./database-instructions";
import { runDatabasePerChat } from "./database-per-chat";
import { runGatewayBenchmarks } from "./gateway-rows";
import { runHotAgent } from "./hot-agent";
import { median } from "./median";
import { runModelBenchmarks } from "./model-rows";
import { cpuSpent, cpuSplit, residentMiB, startChild } from "./processes";
import { runRequestLogBenchmarks } from "./request-log";
import { measureSchedulerThroughput, type SchedulerThroughput } from "./scheduler";
import { prepareStatusUpdates } from "./status-updates";
import { runToolBenchmarks } from "./tool-rows";
import { runWebhookBenchmarks } from "./webhooks";

const SERVER_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const CONNECTIONS = [1, 16, 64];
const SCHEDULER_AGENTS = Number(process.env.BENCH_SCHEDULER_AGENTS ?? 10_000);
/**
 * `model`: only the model rows (no seeding, echo rows, growth series or scheduler); `tools`:
 * only the tool row (bench/tool-rows.ts); `webhooks`: only the webhook row (bench/webhooks.ts);
 * `echo`: only the echo chat row, on 1,000 agents (what issue 29's echo ratio is read from);
 * `scheduler`: only the scheduler, 10,000 agents due at once (issue 29's scheduler row);
 * `request-log`: only the request log's queries, writes and purge (bench/request-log.ts);
 * `database`: only PostgreSQL's CPU and instructions a chat and its statements, and chats a core
 * with budgets on (bench/database-per-chat.ts, database-instructions.ts); `hot-agent`: only one
 * busy agent with one and two workers (bench/hot-agent.ts);
 * `gateway`: only the overhead against Portkey's gateway (bench/gateway-rows.ts).
 */
const ONLY = process.env.BENCH_ONLY || undefined;
const KINDS = [
  "model",
  "tools",
  "webhooks",
  "echo",
  "scheduler",
  "request-log",
  "database",
  "hot-agent",
  "gateway",
] as const;
if (ONLY !== undefined && !(KINDS as readonly string[]).includes(ONLY)) {
  throw new Error(`BENCH_ONLY=${ONLY}: the values understood are ${KINDS.join(", ")}`);
}
/**
 * Whether the rows of `kind` run: all of them, or those BENCH_ONLY names. The request log's
 * rows run only when named: seeding 10 M entries takes longer than the rest of the run.
 */
const runs = (kind: (typeof KINDS)[number]) =>
  ONLY === kind || (ONLY === undefined && kind !== "request-log");
const AGENTS = Number(process.env.BENCH_AGENTS ?? (ONLY === "echo" ? 1_000 : 100_000));

type Measure = { rps: number; p50: number; p99: number; non2xx: number; errors: number };

/** What autocannon drives: a URL, or POSTs of bodies that each work once (signed, with a nonce). */
type Target = {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  /** Makes exactly the bodies one measurement sends; the measurement ends when they are sent. */
  bodies?: (count: number) => Promise<string[]>;
};

const STATUS_UPDATES = Number(process.env.BENCH_STATUS_UPDATES ?? 1500);

async function measure(target: Target, connections: number, warmUp = false): Promise<Measure> {
  const options: autocannon.Options = {
    url: target.url,
    method: target.method ?? "GET",
    connections,
    headers: target.headers ?? {},
    duration: warmUp ? Math.min(DURATION_S, 2) : DURATION_S,
  };
  if (target.bodies) {
    const amount = warmUp ? 200 : STATUS_UPDATES;
    // A few spare: autocannon may build a request or two beyond the amount it sends.
    const bodies = await target.bodies(amount + connections + 8);
    let next = 0;
    options.amount = amount;
    options.requests = [
      { method: "POST", setupRequest: (request) => ({ ...request, body: bodies[next++] }) },
    ];
  }
  const result = await autocannon(options);
  return {
    // Total over elapsed time: exact also for the short, fixed-amount status-update runs.
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** Samples `pid`'s resident memory every `everyMs` until stopped. */
function sampleMemory(pid: number, everyMs = 1000) {
  const samples: { t: number; rss_mib: number }[] = [];
  const started = Date.now();
  const timer = setInterval(() => {
    residentMiB(pid).then(
      (rss) => samples.push({ t: (Date.now() - started) / 1000, rss_mib: rss }),
      () => {},
    );
  }, everyMs);
  return {
    samples,
    stop: () => clearInterval(timer),
  };
}

/** Makes the service's tables in the throwaway database (its migrations, as the service runs them). */
async function migrate(url: string) {
  const database = createDatabase({ kind: "postgres", url });
  await database.migrate();
  await database.close();
}

async function seed(url: string, agents = AGENTS) {
  await migrate(url);
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
  // Each size starts clean: the rows of the previous size deleted, vacuumed away and analysed.
  await sql`VACUUM (ANALYZE) agents, agent_quotas`;
  await sql.end();
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en", { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** The echo rows, the soak, and how cost grows: the service with the built-in echo model. */
async function runEchoBenchmarks(database: { url: string }) {
  console.info(`Seeding ${fmt(AGENTS)} agents…`);
  await seed(database.url);
  // One web worker, and two (npm start's default on this 2-core machine): each row measures
  // both and the baseline, one after the other. The soak and the growth series use the two.
  const startEcho = (workers: number) =>
    startServer({
      DATABASE_URL: database.url,
      SCHEDULER: "off",
      LLM_MAX_CONCURRENCY: "1000",
      WEB_CONCURRENCY: String(workers),
    });
  const single = await startEcho(1);
  const service = await startEcho(2);
  // In a process of its own, as in the model rows: its CPU is read like the service's, and it
  // does not share an event loop with autocannon.
  const baseline = await startChild("bench/baseline-process.ts", {
    BASELINE_DATABASE_URL: database.url,
  });
  const memory = sampleMemory(service.pid);
  const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}` };
  // The chat agent: no limits, so every request does the whole path (service and baseline alike).
  // Both services share the database: it is made once.
  await fetch(`${service.url}/agents`, {
    method: "POST",
    headers: { ...admin, "content-type": "application/json" },
    body: JSON.stringify({
      aid: "bench-chat",
      // One load generator is one caller: no per-caller limit.
      rate_limit_rpm: null,
      quota: { message_limit_total: null, message_limit_monthly: null, message_limit_daily: null },
    }),
  });
  // The service checks the message's domain against PUBLIC_URL (by default localhost:PORT).
  const statusUpdates = await prepareStatusUpdates(database.url);
  const serviceHost = `localhost:${new URL(service.url).port}`;
  const json = { "content-type": "application/json" };

  const singleHost = `localhost:${new URL(single.url).port}`;
  /** A case's target on one of the two services. */
  type ServiceTarget = (base: string, host: string) => Target;
  const allCases: {
    name: string;
    service: ServiceTarget;
    baseline: Target;
    answers405?: true;
  }[] = [
    {
      name: "GET /{aid}/chat (echo)",
      service: (base) => ({ url: `${base}/bench-chat/chat?q=hello&chat_id=bench` }),
      baseline: { url: `${baseline.url}/bench-chat/chat?q=hello&chat_id=bench-baseline` },
    },
    {
      name: `GET /agents (page of 100 of ${fmt(AGENTS)})`,
      service: (base) => ({ url: `${base}/agents?limit=100`, headers: admin }),
      baseline: { url: `${baseline.url}/agents` },
    },
    {
      name: "GET /health",
      service: (base) => ({ url: `${base}/health` }),
      baseline: { url: `${baseline.url}/health` },
    },
    {
      // The floor: a route handler that does no work at all (405 for a method /health does not
      // serve), so this row is what the request's handling around a handler costs against
      // node:http (the server entry's; Next.js's router's with `REST_ROUTING=nextjs`).
      name: "floor: POST /health (405)",
      service: (base) => ({ url: `${base}/health`, method: "POST" }),
      baseline: { url: `${baseline.url}/health`, method: "POST" },
      answers405: true,
    },
    {
      name: "POST /v1/deployments/worker/status",
      service: (base, host) => ({
        url: `${base}/v1/deployments/worker/status`,
        headers: json,
        bodies: (count) => statusUpdates.sign(count, host),
      }),
      baseline: {
        url: `${baseline.url}/v1/deployments/worker/status`,
        headers: json,
        bodies: (count) => statusUpdates.sign(count, serviceHost),
      },
    },
  ];

  const cases = ONLY === "echo" ? allCases.slice(0, 1) : allCases;
  const rows: Record<string, unknown>[] = [];
  /** A measurement with where its CPU went (service processes, PostgreSQL, autocannon). */
  const measureWithCpu = async (target: Target, connections: number, pid: number) => {
    const before = await cpuSplit(pid);
    const result = await measure(target, connections);
    const spent = cpuSpent(before, await cpuSplit(pid));
    const requests = result.rps * DURATION_S;
    return {
      ...result,
      cpu_ms_per_request: spent.service / requests,
      cpu_split_cores: {
        service: spent.service / (DURATION_S * 1000),
        database: spent.database / (DURATION_S * 1000),
        load_generator: spent.load_generator / (DURATION_S * 1000),
      },
    };
  };
  for (const benchCase of cases) {
    for (const connections of CONNECTIONS) {
      // Warm each up briefly, then measure them one after the other in the same run.
      const one = benchCase.service(single.url, singleHost);
      const two = benchCase.service(service.url, serviceHost);
      await measure(one, connections, true).catch(() => undefined);
      const s = await measureWithCpu(one, connections, single.pid);
      await measure(two, connections, true).catch(() => undefined);
      const s2 = await measureWithCpu(two, connections, service.pid);
      const b = await measureWithCpu(benchCase.baseline, connections, baseline.pid);
      const row = {
        endpoint: benchCase.name,
        connections,
        service: s,
        service_2_workers: s2,
        baseline: b,
        rps_ratio: s.rps / b.rps,
        rps_ratio_2_workers: s2.rps / b.rps,
        scaling: s2.rps / s.rps,
        p99_ratio: b.p99 > 0 ? s.p99 / b.p99 : null,
      };
      rows.push(row);
      const failed = (m: Measure) => m.non2xx + m.errors;
      console.info(
        `${benchCase.name.padEnd(36)} c=${String(connections).padStart(2)}  service ×1 ${fmt(s.rps).padStart(6)} req/s p50 ${fmt(s.p50, 1)} p99 ${fmt(s.p99, 1)} ms, ${fmt(s.cpu_ms_per_request, 2)} ms CPU | ×2 ${fmt(s2.rps).padStart(6)} req/s p50 ${fmt(s2.p50, 1)} p99 ${fmt(s2.p99, 1)} ms, ${fmt(s2.cpu_ms_per_request, 2)} ms CPU (${fmt(row.scaling, 2)}×) | baseline ${fmt(b.rps).padStart(6)} req/s p50 ${fmt(b.p50, 1)} p99 ${fmt(b.p99, 1)} ms | ratio ${fmt(row.rps_ratio, 2)} / ${fmt(row.rps_ratio_2_workers, 2)}; cores ×2: service ${fmt(s2.cpu_split_cores.service, 2)}, PostgreSQL ${fmt(s2.cpu_split_cores.database, 2)}, autocannon ${fmt(s2.cpu_split_cores.load_generator, 2)}${!benchCase.answers405 && failed(s) + failed(s2) + failed(b) > 0 ? `  [non-2xx+errors ${failed(s)}/${failed(s2)}/${failed(b)}]` : ""}`,
      );
    }
  }

  if (ONLY === "echo") {
    memory.stop();
    await Promise.all([single.stop(), service.stop(), baseline.stop()]);
    return { rows };
  }
  // Resident memory under a sustained chat load: sampled every second over the soak.
  const soakS = Number(process.env.BENCH_SOAK_S ?? 60);
  const soakFrom = memory.samples.length;
  const soak = await autocannon({
    url: `${service.url}/bench-chat/chat?q=hello&chat_id=soak`,
    connections: 16,
    duration: soakS,
  });
  const soakSamples = memory.samples.slice(soakFrom).map((sample) => sample.rss_mib);
  const soakReport = {
    seconds: soakS,
    connections: 16,
    requests: soak.requests.total,
    rps: soak.requests.average,
    non2xx: soak.non2xx,
    rss_mib: summariseMemory(soakSamples),
  };
  console.info(
    `soak: chat at 16 connections for ${soakS} s: ${fmt(soak.requests.total)} requests (${fmt(soak.requests.average)} req/s, ${soak.non2xx} non-2xx); server RSS first ${fmt(soakReport.rss_mib.first)} MiB, last ${fmt(soakReport.rss_mib.last)} MiB, max ${fmt(soakReport.rss_mib.max)} MiB (first and last: medians of 5 samples)`,
  );

  // How cost grows: a page in the middle of 1k, 10k and 100k agents (keyset pagination should keep
  // it flat), and chat on an empty thread against one of 1,000 messages (bounded history).
  const growth: Record<string, unknown>[] = [];
  for (const agents of [1_000, 10_000, 100_000]) {
    await seed(database.url, agents);
    const middle = `agent-${String(agents / 2).padStart(6, "0")}`;
    const page = await measure(
      {
        url: `${service.url}/agents?limit=100&cursor=${encodeCursor({ a: middle })}`,
        headers: admin,
      },
      1,
    );
    growth.push({ series: "GET /agents page", agents, ...page });
    console.info(
      `growth: GET /agents, page of 100 in the middle of ${fmt(agents).padStart(7)} agents: ${fmt(page.rps)} req/s, p50 ${fmt(page.p50, 1)} ms, p99 ${fmt(page.p99, 1)} ms`,
    );
  }
  const sqlForThreads = postgres(database.url, { max: 1, onnotice: () => {} });
  // The thread of the caller autocannon is to the service: the anonymous client 127.0.0.1.
  const caller = `addr:${hashAddress("127.0.0.1", callerHashKey(TEST_ADMIN_KEY))}`;
  await sqlForThreads`
    INSERT INTO chat_threads (aid, caller, chat_id, message_count, created_at, last_message_at)
    VALUES ('bench-chat', ${caller}, 'long', 1000, now(), now()) ON CONFLICT DO NOTHING`;
  await sqlForThreads`
    INSERT INTO chat_messages (aid, caller, chat_id, role, content, created_at)
    SELECT 'bench-chat', ${caller}, 'long', CASE WHEN i % 2 = 0 THEN 'user' ELSE 'assistant' END, 'message ' || i, now()
    FROM generate_series(1, 1000) AS i`;
  await sqlForThreads.end();
  for (const [label, chatId] of [
    ["empty thread", `fresh-${Date.now()}`],
    ["1,000-message thread", "long"],
  ] as const) {
    // One new thread per measurement would grow as it runs; measure the first seconds of each.
    const result = await measure(
      { url: `${service.url}/bench-chat/chat?q=hello&chat_id=${chatId}` },
      1,
    );
    growth.push({ series: "chat", thread: label, ...result });
    console.info(
      `growth: chat on an ${label}: ${fmt(result.rps)} req/s, p50 ${fmt(result.p50, 1)} ms, p99 ${fmt(result.p99, 1)} ms`,
    );
  }
  memory.stop();
  const wholeRun = summariseMemory(memory.samples.map((sample) => sample.rss_mib));
  await single.stop();
  await service.stop();
  await baseline.stop();
  return {
    rows,
    soak: soakReport,
    server_rss_mib_whole_run: wholeRun,
    growth,
  };
}

/** The scheduler, with the web server stopped: 10,000 agents due at once, then two instances. */
async function runScheduler(database: { url: string }) {
  // Run alone, nothing before it has made the tables.
  if (ONLY === "scheduler") await migrate(database.url);
  const scheduler: SchedulerThroughput[] = [];
  for (const instances of [1, 2]) {
    const result = await measureSchedulerThroughput(database.url, {
      agents: SCHEDULER_AGENTS,
      instances,
    });
    scheduler.push(result);
    console.info(
      `scheduler: ${fmt(result.agents)} agents due at once, ${instances} instance(s): ${fmt(result.runsPerSecond)} runs/s (${fmt(result.succeeded)} succeeded of ${fmt(result.runs)} runs, ${fmt(result.distinctAgents)} agents, ${fmt(result.seconds, 1)} s)`,
    );
  }
  return scheduler;
}

async function runBenchmarks(database: { url: string }) {
  const echo = runs("echo") ? await runEchoBenchmarks(database) : undefined;
  // The model rows come after the echo service has stopped: one service process at a time.
  const modelStarted = Date.now();
  const modelRows = runs("model") ? await runModelBenchmarks(database.url, DURATION_S) : undefined;
  if (modelRows) console.info(`(model rows: ${fmt((Date.now() - modelStarted) / 1000)} s)`);
  const toolRow = runs("tools") ? await runToolBenchmarks(database.url) : undefined;
  const webhookRow = runs("webhooks") ? await runWebhookBenchmarks(database.url) : undefined;
  const scheduler = runs("scheduler") ? await runScheduler(database) : undefined;
  const requestLog = runs("request-log") ? await runRequestLogBenchmarks(database.url) : undefined;
  const databaseRows = runs("database")
    ? { ...(await runDatabasePerChat()), instructions: await runDatabaseInstructions() }
    : undefined;
  const hotAgent = runs("hot-agent") ? await runHotAgent() : undefined;
  const gatewayRow = runs("gateway") ? await runGatewayBenchmarks(database.url) : undefined;

  const report = {
    date: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      model: os.cpus()[0]?.model,
      memory_gib: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
    },
    only: ONLY ?? null,
    duration_s: DURATION_S,
    ...(echo ? { agents: AGENTS, ...echo } : {}),
    ...(modelRows ? { model_rows: modelRows } : {}),
    ...(toolRow ? { tool_row: toolRow } : {}),
    ...(webhookRow ? { webhook_row: webhookRow } : {}),
    ...(scheduler ? { scheduler } : {}),
    ...(requestLog ? { request_log: requestLog } : {}),
    ...(databaseRows ? { database_per_chat: databaseRows } : {}),
    ...(hotAgent ? { hot_agent: hotAgent } : {}),
    ...(gatewayRow ? { gateway_row: gatewayRow } : {}),
  };
  await mkdir("bench/results", { recursive: true });
  await writeFile("bench/results/latest.json", `${JSON.stringify(report, null, 2)}\n`);
  console.info("Written to bench/results/latest.json");
}

/** First and last as medians of five samples (one GC does not make a trend), and the maximum. */
function summariseMemory(samples: number[]) {
  return {
    samples: samples.length,
    first: median(samples.slice(0, 5)),
    last: median(samples.slice(-5)),
    max: Math.max(...samples),
  };
}

/**
 * Warns when other clients hold connections on the PostgreSQL server the bench will load: the
 * services it starts, the baseline and their pools need most of `max_connections`, and a run
 * beside another's leftovers (the servers of an interrupted run outlive it) answers 503 and 500
 * ("too many clients") at 64 connections, which the rows then count as chats.
 */
async function warnOfOtherClients(): Promise<void> {
  const sql = postgres(SERVER_URL, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ others: number; max: number }[]>`
      SELECT count(*)::int AS others, current_setting('max_connections')::int AS max
      FROM pg_stat_activity
      WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`;
    if (row && row.others > 0)
      console.warn(
        `Warning: ${row.others} other connection(s) are open on this PostgreSQL server (max_connections ${row.max}); leftovers of an interrupted run can make the rows fail with "too many clients".`,
      );
  } finally {
    await sql.end();
  }
}

await warnOfOtherClients();
// The throwaway database goes, whether the run finished or failed.
const database = await createThrowawayDatabase(SERVER_URL, "agent_bench");
try {
  await runBenchmarks(database);
} finally {
  await database.drop();
}
