/**
 * What PostgreSQL spends on a chat, and on which statements (BENCHMARKS.md cites it):
 *
 *   npx next build && npx tsx bench/database-per-chat.ts
 *
 * Starts a PostgreSQL server of its own (initdb, fsync and synchronous commit on, with
 * pg_stat_statements), the built service on it with one web process and the echo provider, and
 * 200 agents (no rate limit, the default quota). Then 64 connections chat for DB_CHAT_S seconds
 * (default 10, after a 3 s warm-up), each chat to one of the agents in turn, and it reads:
 * chats a second, the CPU time of the server's processes a chat (every backend, the postmaster's
 * reaped children included) and of the service, and the statements by the time PostgreSQL spent
 * executing them, with their calls and rows a chat. DB_AGAINST=<checkout> measures a second build
 * (another checkout, built) the same way, in DB_ROUNDS rounds (default 3) that alternate which
 * goes first; medians are printed. Then the same chats with a token budget on every agent: chats
 * a second for each core the service used, with budgets and the request log on. `npm run bench`
 * runs it as BENCH_ONLY=database, with bench/database-instructions.ts.
 */
import { pathToFileURL } from "node:url";
import autocannon from "autocannon";
import postgres from "postgres";
import { parentOf } from "../tests/helpers/processes";
import { freePort, type RunningServer, startServer, TEST_ADMIN_KEY } from "../tests/helpers/server";
import { createThrowawayCluster } from "../tests/helpers/throwaway-cluster";
import { median } from "./median";
import { cpuMs, postgresCpuMs, startServerIn } from "./processes";

const CONNECTIONS = Number(process.env.DB_CONNECTIONS || 64);
const SECONDS = Number(process.env.DB_CHAT_S || 10);
const ROUNDS = Number(process.env.DB_ROUNDS || 3);
const WARM_UP_S = 3;

/** What a measurement sends: how many agents, threads and workers, and whether with budgets. */
export type Load = {
  agents: number;
  /** Each chat on one of this many threads in turn; none: each agent's default thread. */
  threads?: number;
  workers: number;
  /** Agents made with no message limits and, when set, this daily token budget. */
  tokenBudget?: number;
  /** Agents made with the default quota (the echo row of 2026-11-27) rather than none. */
  defaultQuota?: boolean;
};

export type Measured = {
  build: string;
  chats_per_s: number;
  non_2xx: number;
  postgres_cpu_ms_per_chat: number;
  service_cpu_ms_per_chat: number;
  statements: Array<{
    query: string;
    calls_per_chat: number;
    rows_per_chat: number;
    ms_per_chat: number;
  }>;
};

/** One build under `load` on a PostgreSQL server of its own. */
export async function measureChats(
  build: string,
  root: string | undefined,
  load: Load,
): Promise<Measured> {
  const port = await freePort();
  const cluster = createThrowawayCluster(port, [
    "fsync=on",
    "synchronous_commit=on",
    "shared_preload_libraries=pg_stat_statements",
    "pg_stat_statements.max=1000",
    "max_connections=60",
  ]);
  const admin = postgres(cluster.url, { max: 1, onnotice: () => {} });
  try {
    await admin`CREATE EXTENSION pg_stat_statements`;
    // The server's postmaster: the parent of its checkpointer, which pg_stat_activity lists.
    const [{ pid: checkpointer }] = (await admin`
      SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'`) as unknown as [
      { pid: number },
    ];
    const postmasterPid = parentOf(checkpointer) as number;
    const env = {
      DATABASE_URL: cluster.url,
      WEB_CONCURRENCY: String(load.workers),
      SCHEDULER: "off",
    };
    const server = (
      root ? await startServerIn(root, env) : await startServer(env)
    ) as RunningServer;
    try {
      await makeAgents(server.url, load);
      const chats = chatPaths(load);
      const drive = (duration: number) =>
        autocannon({
          url: server.url,
          connections: CONNECTIONS,
          duration,
          requests: [{ setupRequest: (request) => ({ ...request, path: chats() }) }],
        });
      await drive(WARM_UP_S);
      await admin`SELECT pg_stat_statements_reset()`;
      const before = { db: await postgresCpuMs(postmasterPid), service: await cpuMs(server.pid) };
      const result = await drive(SECONDS);
      const after = { db: await postgresCpuMs(postmasterPid), service: await cpuMs(server.pid) };
      const total = result.requests.total;
      const statements = await admin`
        SELECT query, calls, rows, total_exec_time AS ms FROM pg_stat_statements
        WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY total_exec_time DESC LIMIT 6`;
      return {
        build,
        chats_per_s: total / SECONDS,
        non_2xx: result.non2xx + result.errors,
        postgres_cpu_ms_per_chat: (after.db - before.db) / total,
        service_cpu_ms_per_chat: (after.service - before.service) / total,
        statements: statements.map((row) => ({
          query: String(row.query).replace(/\s+/g, " ").slice(0, 110),
          calls_per_chat: Number(row.calls) / total,
          rows_per_chat: Number(row.rows) / total,
          ms_per_chat: Number(row.ms) / total,
        })),
      };
    } finally {
      await server.stop();
    }
  } finally {
    await admin.end({ timeout: 1 });
    cluster.destroy();
  }
}

async function makeAgents(url: string, load: Load): Promise<void> {
  const headers = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };
  const quota = load.defaultQuota
    ? undefined
    : {
        message_limit_daily: null,
        message_limit_monthly: null,
        ...(load.tokenBudget ? { token_limit_daily: load.tokenBudget } : {}),
      };
  for (let i = 0; i < load.agents; i++) {
    const made = await fetch(`${url}/agents`, {
      method: "POST",
      headers,
      body: JSON.stringify({ aid: `a${i}`, rate_limit_rpm: null, ...(quota ? { quota } : {}) }),
    });
    if (made.status !== 201) throw new Error(`POST /agents: ${made.status}`);
  }
}

/** The chats' paths in turn: each agent in turn, and each thread in turn when there are some. */
function chatPaths(load: Load): () => string {
  let next = 0;
  return () => {
    const n = next++;
    const thread = load.threads ? `&chat_id=t${n % load.threads}` : "";
    return `/a${n % load.agents}/chat?q=hello${thread}`;
  };
}

/** What one row compares: builds (another checkout) or loads (a worker count). */
export type Variant = { name: string; root?: string | undefined; load: Load };

/** Each variant measured in ROUNDS rounds, alternating which goes first; their medians. */
export async function inRounds(variants: Variant[]): Promise<Measured[]> {
  const rounds = new Map<string, Measured[]>(variants.map(({ name }) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? variants : [...variants].reverse();
    for (const { name, root, load } of order)
      rounds.get(name)?.push(await measureChats(name, root, load));
  }
  return variants.map(({ name }) => {
    const runs = rounds.get(name) as Measured[];
    const mid = (key: "chats_per_s" | "postgres_cpu_ms_per_chat" | "service_cpu_ms_per_chat") =>
      median(runs.map((run) => run[key]));
    return {
      ...(runs[0] as Measured),
      chats_per_s: mid("chats_per_s"),
      postgres_cpu_ms_per_chat: mid("postgres_cpu_ms_per_chat"),
      service_cpu_ms_per_chat: mid("service_cpu_ms_per_chat"),
      non_2xx: runs.reduce((sum, run) => sum + run.non_2xx, 0),
    };
  });
}

/** This checkout's build, and DB_AGAINST's when set. */
function theBuilds(load: Load): Variant[] {
  const builds: Variant[] = [{ name: "this checkout", load }];
  if (process.env.DB_AGAINST)
    builds.push({ name: process.env.DB_AGAINST, root: process.env.DB_AGAINST, load });
  return builds;
}

/**
 * The echo chat over 200 agents with the default quota, as on 2026-11-27 (the row's peer), then
 * with a token budget on every agent and no message limits: chats a second a service core.
 */
export async function runDatabasePerChat() {
  const echo = await inRounds(theBuilds({ agents: 200, workers: 1, defaultQuota: true }));
  for (const run of echo) {
    console.info(
      `database a chat, ${run.build}: ${run.chats_per_s.toFixed(0)} chats/s at c=${CONNECTIONS} over 200 agents (${run.non_2xx} non-2xx, medians of ${ROUNDS}); PostgreSQL ${run.postgres_cpu_ms_per_chat.toFixed(3)} ms CPU a chat, the service ${run.service_cpu_ms_per_chat.toFixed(3)} ms`,
    );
    for (const statement of run.statements)
      console.info(
        `  ${statement.ms_per_chat.toFixed(3)} ms  ${statement.calls_per_chat.toFixed(2)} calls ${statement.rows_per_chat.toFixed(2)} rows  ${statement.query}`,
      );
  }
  const [self, against] = echo;
  if (self && against)
    console.info(
      `  PostgreSQL's CPU a chat against ${against.build}: ${(self.postgres_cpu_ms_per_chat / against.postgres_cpu_ms_per_chat).toFixed(2)}×`,
    );
  const [budgeted] = await inRounds([
    { name: "this checkout", load: { agents: 200, workers: 1, tokenBudget: 1_000_000_000 } },
  ]);
  const perCore = (budgeted as Measured).service_cpu_ms_per_chat;
  const withDatabase = perCore + (budgeted as Measured).postgres_cpu_ms_per_chat;
  console.info(
    `chats a second a core, budgets and request log on: ${(1000 / perCore).toFixed(0)} a service core, ${(1000 / withDatabase).toFixed(0)} a core of the service and PostgreSQL together (${budgeted?.chats_per_s.toFixed(0)} chats/s, ${budgeted?.non_2xx} non-2xx)`,
  );
  return { echo, budgeted };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runDatabasePerChat();
}
