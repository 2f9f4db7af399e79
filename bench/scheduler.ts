import { type ChildProcess, spawn } from "node:child_process";
import postgres from "postgres";

/**
 * Scheduler throughput: `agents` autonomous agents all due at once, worked off by `instances`
 * `npm run worker` processes sharing one PostgreSQL (echo provider). The rate is taken from the
 * database's own timestamps (first run started to last run finished), so process start-up is not
 * counted. Also checks what the figure would hide: every agent ran exactly once.
 */
export type SchedulerThroughput = {
  agents: number;
  instances: number;
  runs: number;
  succeeded: number;
  distinctAgents: number;
  seconds: number;
  runsPerSecond: number;
};

export async function measureSchedulerThroughput(
  databaseUrl: string,
  { agents, instances }: { agents: number; instances: number },
): Promise<SchedulerThroughput> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    await seedDueAgents(sql, agents);
    const workers = Array.from({ length: instances }, () => startWorker(databaseUrl));
    try {
      await waitUntilDone(sql, agents);
    } finally {
      await Promise.all(workers.map(stopWorker));
    }
    const [row] = await sql<
      { runs: number; succeeded: number; distinct_agents: number; seconds: number }[]
    >`
      SELECT count(*)::int AS runs,
             (count(*) FILTER (WHERE outcome = 'succeeded'))::int AS succeeded,
             count(DISTINCT aid)::int AS distinct_agents,
             extract(epoch FROM max(finished_at) - min(started_at))::float8 AS seconds
      FROM autonomous_runs WHERE aid LIKE 'auto-%'`;
    if (!row) throw new Error("no runs recorded");
    return {
      agents,
      instances,
      runs: row.runs,
      succeeded: row.succeeded,
      distinctAgents: row.distinct_agents,
      seconds: row.seconds,
      runsPerSecond: row.succeeded / row.seconds,
    };
  } finally {
    await sql.end();
  }
}

async function seedDueAgents(sql: postgres.Sql, count: number): Promise<void> {
  await sql`DELETE FROM autonomous_runs WHERE aid LIKE 'auto-%'`;
  await sql`DELETE FROM agents WHERE aid LIKE 'auto-%'`;
  // Due a minute ago, every hour after: each agent has exactly one slot due during the run.
  await sql`
    INSERT INTO agents (aid, name, autonomous_enabled, autonomous_minutes, autonomous_prompt,
                        autonomous_next_run_at, created_at, updated_at)
    SELECT 'auto-' || lpad(i::text, 6, '0'), 'Auto ' || i, true, 60, 'Report.',
           now() - interval '1 minute', now(), now()
    FROM generate_series(1, ${count}) AS i`;
  await sql`
    INSERT INTO agent_quotas (aid, message_day, message_month, autonomous_month)
    SELECT aid, current_date, date_trunc('month', now())::date, date_trunc('month', now())::date
    FROM agents WHERE aid LIKE 'auto-%'`;
  await sql`ANALYZE agents`;
}

function startWorker(databaseUrl: string): ChildProcess {
  // BENCH_PROFILE_DIR: each worker writes a CPU profile there when it stops.
  const profile = process.env.BENCH_PROFILE_DIR
    ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`]
    : [];
  const child = spawn(process.execPath, [...profile, "--import", "tsx", "scripts/worker.ts"], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: "production",
      DATABASE_URL: databaseUrl,
      ADMIN_API_KEY: "bench-admin-key-0123456789",
      SCHEDULER_TICK_MS: process.env.BENCH_SCHEDULER_TICK_MS ?? "100",
      SCHEDULER_BATCH_SIZE: process.env.BENCH_SCHEDULER_BATCH_SIZE ?? "100",
      SCHEDULER_CONCURRENCY: process.env.BENCH_SCHEDULER_CONCURRENCY ?? "64",
      LLM_MAX_CONCURRENCY: "1000",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  return child;
}

async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  await exited;
}

async function waitUntilDone(sql: postgres.Sql, agents: number, timeoutMs = 300_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const [row] = await sql<{ finished: number }[]>`
      SELECT count(*)::int AS finished FROM autonomous_runs
      WHERE aid LIKE 'auto-%' AND outcome <> 'running'`;
    if ((row?.finished ?? 0) >= agents) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${agents} due agents were not all run within ${timeoutMs / 1000} s`);
}
