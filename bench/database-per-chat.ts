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
 * (another checkout, built) the same way in the same run, after the first. `npm run bench` runs
 * it as BENCH_ONLY=database, and in the whole run.
 */
import { pathToFileURL } from "node:url";
import autocannon from "autocannon";
import postgres from "postgres";
import { parentOf } from "../tests/helpers/processes";
import { freePort, type RunningServer, startServer, TEST_ADMIN_KEY } from "../tests/helpers/server";
import { createThrowawayCluster } from "../tests/helpers/throwaway-cluster";
import { cpuMs, postgresCpuMs, startServerIn } from "./processes";

const AGENTS = 200;
const CONNECTIONS = Number(process.env.DB_CONNECTIONS || 64);
const SECONDS = Number(process.env.DB_CHAT_S || 10);
const WARM_UP_S = 3;

type Measured = {
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

async function measure(build: string, root: string | undefined): Promise<Measured> {
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
    const env = { DATABASE_URL: cluster.url, WEB_CONCURRENCY: "1", SCHEDULER: "off" };
    const server = (
      root ? await startServerIn(root, env) : await startServer(env)
    ) as RunningServer;
    try {
      const headers = {
        authorization: `Bearer ${TEST_ADMIN_KEY}`,
        "content-type": "application/json",
      };
      for (let i = 0; i < AGENTS; i++) {
        const made = await fetch(`${server.url}/agents`, {
          method: "POST",
          headers,
          body: JSON.stringify({ aid: `a${i}`, rate_limit_rpm: null }),
        });
        if (made.status !== 201) throw new Error(`POST /agents: ${made.status}`);
      }
      let next = 0;
      const load = (duration: number) =>
        autocannon({
          url: server.url,
          connections: CONNECTIONS,
          duration,
          requests: [
            {
              setupRequest: (request) => ({
                ...request,
                path: `/a${next++ % AGENTS}/chat?q=hello`,
              }),
            },
          ],
        });
      await load(WARM_UP_S);
      await admin`SELECT pg_stat_statements_reset()`;
      const before = { db: await postgresCpuMs(postmasterPid), service: await cpuMs(server.pid) };
      const result = await load(SECONDS);
      const after = { db: await postgresCpuMs(postmasterPid), service: await cpuMs(server.pid) };
      const chats = result.requests.total;
      const statements = await admin`
        SELECT query, calls, rows, total_exec_time AS ms FROM pg_stat_statements
        WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY total_exec_time DESC LIMIT 12`;
      return {
        build,
        chats_per_s: chats / SECONDS,
        non_2xx: result.non2xx + result.errors,
        postgres_cpu_ms_per_chat: (after.db - before.db) / chats,
        service_cpu_ms_per_chat: (after.service - before.service) / chats,
        statements: statements.map((row) => ({
          query: String(row.query).replace(/\s+/g, " ").slice(0, 110),
          calls_per_chat: Number(row.calls) / chats,
          rows_per_chat: Number(row.rows) / chats,
          ms_per_chat: Number(row.ms) / chats,
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

/** This checkout's build, then DB_AGAINST's when set; each row printed as it is measured. */
export async function runDatabasePerChat(): Promise<Measured[]> {
  const runs: Measured[] = [];
  const builds: Array<[string, string | undefined]> = [["this checkout", undefined]];
  if (process.env.DB_AGAINST) builds.push([process.env.DB_AGAINST, process.env.DB_AGAINST]);
  for (const [name, root] of builds) {
    const run = await measure(name, root);
    runs.push(run);
    console.info(
      `database a chat, ${run.build}: ${run.chats_per_s.toFixed(0)} chats/s at c=${CONNECTIONS} over ${AGENTS} agents (${run.non_2xx} non-2xx); PostgreSQL ${run.postgres_cpu_ms_per_chat.toFixed(3)} ms CPU a chat, the service ${run.service_cpu_ms_per_chat.toFixed(3)} ms`,
    );
    for (const statement of run.statements)
      console.info(
        `  ${statement.ms_per_chat.toFixed(3)} ms  ${statement.calls_per_chat.toFixed(2)} calls ${statement.rows_per_chat.toFixed(2)} rows  ${statement.query}`,
      );
  }
  return runs;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runDatabasePerChat();
}
