import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAi, startFakeOpenAi } from "../helpers/fake-openai";
import { freePort, type RunningServer, startServer, TEST_ADMIN_KEY } from "../helpers/server";
import {
  clusterAvailable,
  createThrowawayCluster,
  type ThrowawayCluster,
} from "../helpers/throwaway-cluster";

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const REPLY_DELAY_MS = 500;
const CONCURRENCY = 24;
const REPLY = "An autonomous reply.";

/**
 * `stopping`: from asking PostgreSQL to stop until it has (it finishes what it can meanwhile);
 * `starting`: from asking it to start until `pg_ctl -w` has seen it accept connections (the
 * server may find it a little before that).
 */
type Phase = "before" | "stopping" | "down" | "starting" | "after";

type RunRow = {
  id: number;
  aid: string;
  trigger: string;
  due_at: Date;
  started_at: Date;
  finished_at: Date | null;
  outcome: "running" | "succeeded" | "failed" | "skipped";
  error: string | null;
  quota_month: string | null;
};

/**
 * PostgreSQL stopped (fast: connections cut) and started again while autonomous runs are in
 * flight, on a throwaway cluster of the test's own. The scheduler must find the database again
 * by itself, and the database must end consistent: every run finished (none left `running`),
 * exactly the succeeded runs keep their quota, every succeeded run stored its exchange, and no
 * scheduled slot ran twice.
 */
describe.skipIf(!clusterAvailable).each([
  // More agents due than the scheduler may run at once: it is full, and its tick waits for a
  // run to finish before it claims again.
  { agents: 100, load: "100 agents, the scheduler full" },
  // Fewer than a claim's batch: every claim comes back short, so the tick returns at once and
  // nothing waits on the runs in flight (each agent is made due again while its run is in
  // flight, so there are still many of them).
  { agents: 8, load: "8 agents, claims coming back short" },
])("the database restarting under autonomous runs, $load", ({ agents: AGENTS }) => {
  let cluster: ThrowawayCluster;
  let server: RunningServer;
  let fake: FakeOpenAi;
  let sql: postgres.Sql;

  beforeAll(async () => {
    fake = await startFakeOpenAi();
    fake.behave({ kind: "reply", text: REPLY, delayMs: REPLY_DELAY_MS });
    cluster = createThrowawayCluster(await freePort());
    server = await startServer({
      DATABASE_URL: cluster.url,
      LLM_BASE_URL: fake.baseUrl,
      LLM_API_KEY: "sk-test",
      LLM_MAX_RETRIES: "0",
      LLM_TIMEOUT_MS: "10000",
      SCHEDULER: "on",
      SCHEDULER_TICK_MS: "150",
      SCHEDULER_CONCURRENCY: String(CONCURRENCY),
    });
    // The test's own connection, to make agents due and to read what the server left. Its
    // reconnect backoff is short, as the server's is: postgres.js's default grows to seconds
    // during an outage, and agents would then be made due again late after the restart.
    sql = postgres(cluster.url, {
      max: 2,
      connect_timeout: 2,
      backoff: (attempt: number) => Math.min(0.1 * attempt, 1),
      onnotice: () => {},
    });
  });
  afterAll(async () => {
    await server?.stop();
    await sql?.end({ timeout: 1 }).catch(() => {});
    cluster?.destroy();
    await fake?.close();
  });

  it("loses nothing, counts nothing twice, and recovers by itself", async () => {
    // Many agents on the shortest interval, autonomous quota unlimited. Created disabled, then
    // enabled all at once, so that they are all due together.
    for (let i = 0; i < AGENTS; i++) {
      const created = await fetch(`${server.url}/agents`, {
        method: "POST",
        headers: admin,
        body: JSON.stringify({
          aid: `auto-${i}`,
          autonomous_enabled: false,
          autonomous_minutes: 1,
          autonomous_prompt: `Check queue ${i}.`,
          quota: { autonomous_limit_total: null, autonomous_limit_monthly: null },
        }),
      });
      expect(created.status).toBe(201);
    }

    // Keeps every agent due: once the scheduler has claimed a slot (next run a minute later),
    // the agent is made due again at once, a new slot. Errors while the database is down are
    // expected and ignored.
    let rearming = true;
    let rearmErrors = 0;
    const rearm = (async () => {
      while (rearming) {
        try {
          await sql`UPDATE agents SET autonomous_next_run_at = clock_timestamp()
                    WHERE autonomous_enabled AND autonomous_next_run_at > clock_timestamp()`;
        } catch {
          rearmErrors++;
        }
        await sleep(100);
      }
    })();
    await sql`UPDATE agents SET autonomous_enabled = true, autonomous_next_run_at = clock_timestamp()`;

    await sleep(1500);
    const [inFlight] = await sql<{ running: number }[]>`
      SELECT count(*)::int AS running FROM autonomous_runs WHERE outcome = 'running'`;
    const runningAtStop = inFlight?.running ?? 0;
    const downAt = new Date();
    cluster.stop();
    const stoppedAt = new Date();
    await sleep(2500);
    const startingAt = new Date();
    cluster.start();
    const upAt = new Date();
    await sleep(3000);

    // No new slots; then the runs in flight finish (and any background repair has time to act).
    rearming = false;
    await rearm;
    await sql`UPDATE agents SET autonomous_enabled = false, autonomous_next_run_at = NULL`;

    const readRuns = () => sql<RunRow[]>`SELECT * FROM autonomous_runs ORDER BY id`;
    const readQuotas = () => sql<{ aid: string; total: number; monthly: number }[]>`
      SELECT aid, autonomous_count_total AS total, autonomous_count_monthly AS monthly
      FROM agent_quotas ORDER BY aid`;
    const readMessages = () => sql<{ aid: string; role: string; n: number }[]>`
      SELECT aid, role, count(*)::int AS n FROM chat_messages
      WHERE chat_id = 'autonomous' GROUP BY aid, role`;
    const readThreads = () => sql<{ aid: string; message_count: number }[]>`
      SELECT aid, message_count FROM chat_threads WHERE chat_id = 'autonomous'`;

    /** Everything that should hold once the work in flight is over; empty when it all does. */
    const problems = async () => {
      const runs = await readRuns();
      const quotas = await readQuotas();
      const found: string[] = [];
      const running = runs.filter((r) => r.outcome === "running");
      if (running.length > 0) found.push(`${running.length} runs still 'running'`);
      for (const { aid, total, monthly } of quotas) {
        const mine = runs.filter((r) => r.aid === aid);
        const holding = mine.filter((r) => r.outcome === "succeeded" || r.outcome === "running");
        const withMonth = mine.filter((r) => r.quota_month !== null);
        if (total !== holding.length || monthly !== holding.length || withMonth.length !== total)
          found.push(
            `${aid}: counted ${total}/${monthly} (total/monthly), ${holding.length} runs hold quota, ${withMonth.length} have a quota month`,
          );
      }
      return found;
    };
    const settleDeadline = Date.now() + 15_000;
    let left = await problems();
    while (left.length > 0 && Date.now() < settleDeadline) {
      await sleep(250);
      left = await problems();
    }
    const settledAfterMs = Date.now() - startingAt.getTime();

    const runs = await readRuns();
    const quotas = await readQuotas();
    const messages = await readMessages();
    const threads = await readThreads();
    const healthStatus = await fetch(`${server.url}/health`).then(
      (response) => response.status,
      () => 0,
    );

    // Figures, for the record.
    const phaseOf = (at: Date): Phase =>
      at < downAt
        ? "before"
        : at < stoppedAt
          ? "stopping"
          : at < startingAt
            ? "down"
            : at < upAt
              ? "starting"
              : "after";
    const tally = (rows: RunRow[]) => {
      const by: Record<string, number> = {};
      for (const r of rows) by[r.outcome] = (by[r.outcome] ?? 0) + 1;
      return by;
    };
    const byStart = (phase: Phase) => runs.filter((r) => phaseOf(r.started_at) === phase);
    const failures = new Map<string, number>();
    for (const r of runs.filter((r) => r.outcome === "failed")) {
      const key = `${r.finished_at ? phaseOf(r.finished_at) : "?"}: ${r.error}`;
      failures.set(key, (failures.get(key) ?? 0) + 1);
    }
    // Measured from the moment pg_ctl started it (it accepts connections a little later).
    const firstSuccessAfter = Math.min(
      ...runs
        .filter((r) => r.outcome === "succeeded" && r.finished_at && r.started_at >= startingAt)
        .map((r) => (r.finished_at as Date).getTime() - startingAt.getTime()),
    );
    const firstClaimAfter = Math.min(
      ...runs
        .filter((r) => r.started_at >= startingAt)
        .map((r) => r.started_at.getTime() - startingAt.getTime()),
    );
    const output = server.output();
    const count = (text: string) => output.split(text).length - 1;
    // Each run error the server logged, by its message (the query's start) and error code.
    const logged = new Map<string, number>();
    // The logged error ends with the `}` closing its properties, at the start of a line.
    for (const match of output.matchAll(
      /^Autonomous run \d+ of '[^']+' failed: ([\s\S]*?)\n\}/gm,
    )) {
      const text = match[1] ?? "";
      const message = text.replace(/\s+/g, " ").slice(0, 70);
      const code = /code: '([^']+)'/.exec(text)?.[1] ?? "?";
      const key = `${message.replace(/127\.0\.0\.1:\d+/, "127.0.0.1:<port>")}... (${code})`;
      logged.set(key, (logged.get(key) ?? 0) + 1);
    }
    console.info(
      [
        `scheduler restart: ${runs.length} runs, ${fake.requests.length} model calls; ${runningAtStop} running when stopped (pg_ctl stop took ${stoppedAt.getTime() - downAt.getTime()} ms)`,
        `  started before: ${JSON.stringify(tally(byStart("before")))}`,
        `  started while stopping: ${JSON.stringify(tally(byStart("stopping")))}`,
        `  started while down: ${JSON.stringify(tally(byStart("down")))}`,
        `  started while starting: ${JSON.stringify(tally(byStart("starting")))}`,
        `  started after: ${JSON.stringify(tally(byStart("after")))}`,
        `  failures (phase finished: error): ${JSON.stringify(Object.fromEntries(failures))}`,
        `  first claim ${firstClaimAfter} ms, first success ${firstSuccessAfter} ms after PostgreSQL was started (pg_ctl start took ${upAt.getTime() - startingAt.getTime()} ms); settled ${left.length === 0 ? `within ${settledAfterMs} ms` : "never"} of it`,
        `  log: ${count("Scheduler tick failed")} failed ticks, ${count("Autonomous run ")} run errors, ${count("unhandledRejection")} unhandled rejections, ${count("uncaughtException")} uncaught exceptions; ${rearmErrors} rearm errors`,
        ...[...logged].map(([line, n]) => `  logged ${n}x: Autonomous run failed: ${line}`),
        ...left.slice(0, 10).map((p) => `  problem: ${p}`),
      ].join("\n"),
    );

    // SHOW_SERVER_OUTPUT=1 prints what the server logged (its errors with their causes).
    if (process.env.SHOW_SERVER_OUTPUT) console.info(output);

    // The scheduler found the database again by itself, and the server lived through it.
    expect.soft(healthStatus).toBe(200);
    expect.soft(runningAtStop).toBeGreaterThan(0);
    expect
      .soft(byStart("before").filter((r) => r.outcome === "succeeded").length)
      .toBeGreaterThan(0);
    expect
      .soft(runs.filter((r) => r.outcome === "succeeded" && r.started_at >= startingAt).length)
      .toBeGreaterThan(0);
    expect
      .soft(output.split("\n").filter((line) => /uncaughtException|unhandledRejection/.test(line)))
      .toEqual([]);

    // No slot ran twice.
    const slots = new Map<string, number>();
    for (const r of runs.filter((r) => r.trigger === "schedule")) {
      const key = `${r.aid} ${r.due_at.toISOString()}`;
      slots.set(key, (slots.get(key) ?? 0) + 1);
    }
    expect.soft([...slots].filter(([, n]) => n > 1)).toEqual([]);

    // Every succeeded run stored its exchange (a question and a reply), and nothing else was.
    const succeededOf = (aid: string) =>
      runs.filter((r) => r.aid === aid && r.outcome === "succeeded").length;
    const storedOf = (aid: string, role: string) =>
      messages.find((m) => m.aid === aid && m.role === role)?.n ?? 0;
    const threadCountOf = (aid: string) => threads.find((t) => t.aid === aid)?.message_count ?? 0;
    expect
      .soft(
        quotas
          .filter(
            ({ aid }) =>
              storedOf(aid, "user") !== succeededOf(aid) ||
              storedOf(aid, "assistant") !== succeededOf(aid) ||
              threadCountOf(aid) !== 2 * succeededOf(aid),
          )
          .map(
            ({ aid }) =>
              `${aid}: ${succeededOf(aid)} succeeded, ${storedOf(aid, "user")}+${storedOf(aid, "assistant")} messages, thread counts ${threadCountOf(aid)}`,
          ),
      )
      .toEqual([]);

    // Every run finished once the work in flight was over; a failed or skipped run holds no
    // quota, and the counters count exactly the succeeded runs.
    expect
      .soft(
        runs
          .filter((r) => r.outcome === "running")
          .map((r) => `run ${r.id} of ${r.aid}, started ${r.started_at.toISOString()}`),
      )
      .toEqual([]);
    expect
      .soft(
        runs
          .filter((r) => (r.outcome === "failed" || r.outcome === "skipped") && r.quota_month)
          .map((r) => r.id),
      )
      .toEqual([]);
    expect
      .soft(
        quotas
          .filter(
            ({ aid, total, monthly }) => total !== succeededOf(aid) || monthly !== succeededOf(aid),
          )
          .map(
            ({ aid, total, monthly }) =>
              `${aid}: counted ${total} total, ${monthly} monthly; ${succeededOf(aid)} succeeded`,
          ),
      )
      .toEqual([]);

    // And it still stops cleanly.
    expect(await server.signal("SIGTERM")).toBe(0);
    expect(server.output()).toContain("Agent Service: stopped.");
  });
});
