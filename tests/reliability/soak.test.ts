import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import { Pool } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createThrowawayPostgres, TEST_DATABASE_URL } from "../helpers/database-kinds";
import {
  listeningPids,
  openFds,
  parentOf,
  processTree,
  readProc,
  residentKb,
} from "../helpers/processes";
import {
  type RunningServer,
  SERVER_NODE_OPTIONS,
  startServer,
  TEST_ADMIN_KEY,
} from "../helpers/server";

/**
 * A soak: the requests of about 7 minutes at 50 req/s (20,000; 30,000 until CI outgrew its 30
 * minutes on a slower machine, 2026-11-27), sent open-loop at a steady higher rate (SOAK_RATE, default 250 req/s: about half of
 * what one server does at 16 connections on a 2-core machine, so the machine is not saturated),
 * over 5 agents × 200 threads on a PostgreSQL database of the test's own. Every second it
 * samples the server's resident memory (and, through a preloaded probe, its heap), the
 * server's PostgreSQL connections, the requests in flight and the rate achieved.
 *
 * It asserts: every answer is a 200 with the echo of its question; the server never holds
 * more PostgreSQL connections than its pool's size (20, db/client.ts) and holds no more at the
 * end than after the warm-up, all idle, and none once it has stopped; resident memory after the
 * warm-up grows by at most RSS_GROWTH_BOUND_MB and never exceeds 400 MB (the project's target);
 * the live heap grows by at most HEAP_GROWTH_BOUND_MB; and the database holds exactly two
 * messages and one quota use per 200. Each check is soft: a run reports every one that fails.
 *
 * SOAK_REQUESTS and SOAK_RATE change the size and the rate.
 */

const REQUESTS = Number(process.env.SOAK_REQUESTS ?? 20_000);
const RATE = Number(process.env.SOAK_RATE ?? 250);
const AGENTS = 5;
const CHAT_IDS = 200;
/**
 * Open loop, but bounded: at most 32 requests in flight, the model-slot cap when the soak's
 * figures were first taken, so runs stay comparable. Sends held back by the bound are counted
 * and reported as lag.
 */
const MAX_OUTSTANDING = 32;
/** Before the timer starts: this many requests, a few at a time, so that a cold server (routes
 * compiled on first use, JIT) does not start the soak with a backlog. */
const PREWARM_REQUESTS = 200;
/** The first 20% of the requests warm the server up (JIT, pools, caches, heap sizing). */
const WARM_UP_FRACTION = 0.2;
/** The pool size the service uses: db/client.ts's default (server/frame/services.ts sets none). */
const POOL_MAX = 20;
/** The project's target for resident memory under chat load on PostgreSQL. */
const RSS_CEILING_MB = 400;
/**
 * Median RSS of the last samples against the median just after the warm-up (medians of five,
 * so one GC cycle does not decide). 64 MB over the 16,000 requests after the warm-up is about
 * 4 KB each: anything kept per request shows, while V8 resizing its heap and malloc's arenas
 * settling do not.
 */
const RSS_GROWTH_BOUND_MB = 64;
/**
 * The heap that is really live (after full collections, FinalizationRegistry callbacks let run
 * between them: see tests/helpers/memory-probe.cjs) at the end of the load against the same
 * after the pre-warm, before the load: 16 MB over 20,000 requests is about 0.8 KB each. This
 * tells a leak (live objects that pile up) from garbage that is collected late (RSS only).
 */
const HEAP_GROWTH_BOUND_MB = 16;
/** How many one-second samples a median takes. */
const MEDIAN_OF = 5;

const onLinux = existsSync("/proc/self/status");
const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (bytes: number) => bytes / 1024 / 1024;
const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en", { maximumFractionDigits: digits, minimumFractionDigits: digits });

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** Least-squares slope of y over x. */
function slope(points: Array<[number, number]>): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? Number.NaN : num / den;
}

// --- The probe's lines (tests/helpers/memory-probe.cjs) --------------------------------------

type ProbeLine = {
  pid: number;
  t: number;
  gc: boolean;
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
};

function probeLines(file: string): ProbeLine[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as ProbeLine];
      } catch {
        return []; // a line being written as we read
      }
    });
}

/** Full GCs in `pid` (if the probe runs there), and the heap after them. */
async function heapAfterGc(file: string, pid: number): Promise<ProbeLine | undefined> {
  // Without the probe's handler SIGUSR2 would end the process: send it only to a probed one.
  const before = probeLines(file).filter((l) => l.pid === pid);
  if (before.length === 0) return undefined;
  const seen = before.filter((l) => l.gc).length;
  process.kill(pid, "SIGUSR2");
  for (let i = 0; i < 50; i++) {
    await sleep(100);
    const gcs = probeLines(file).filter((l) => l.pid === pid && l.gc);
    if (gcs.length > seen) return gcs.at(-1);
  }
  return undefined;
}

// --- The soak --------------------------------------------------------------------------------

type Sample = {
  /** Seconds since the load started. */
  t: number;
  sent: number;
  completed: number;
  outstanding: number;
  /** Answers other than 200 (and failed requests) so far. */
  failures: number;
  /** Completions per second since the previous sample. */
  rate: number;
  /** Resident memory in MB, by pid. */
  rss: Record<number, number>;
  fds: number | undefined;
  /** The server's PostgreSQL connections (client backends on its database), by state. */
  pg: Record<string, number>;
  pgTotal: number;
  /** The machine's 1-minute load average (other work on it shows here). */
  load: number;
  loading: boolean;
};

const durationS = REQUESTS / RATE;

describe.skipIf(!TEST_DATABASE_URL || !onLinux)("a soak at a steady rate", () => {
  let database: { url: string; drop(): Promise<void> };
  let server: RunningServer | undefined;
  let monitor: postgres.Sql | undefined;
  let probeDir: string | undefined;
  let databaseName: string;

  beforeAll(async () => {
    database = await createThrowawayPostgres();
    databaseName = new URL(database.url).pathname.slice(1);
    probeDir = await mkdtemp(path.join(tmpdir(), "soak-probe-"));
    const probe = fileURLToPath(new URL("../helpers/memory-probe.cjs", import.meta.url));
    server = await startServer({
      DATABASE_URL: database.url,
      // The heap cap of `npm start`, and the probe.
      NODE_OPTIONS: `${SERVER_NODE_OPTIONS} --expose-gc --require ${probe}`,
      MEMORY_PROBE_FILE: path.join(probeDir, "probe.jsonl"),
      // One web process: the soak follows one process's memory, heap and pool (the cluster's
      // own behaviour is tests/reliability/cluster.test.ts's).
      WEB_CONCURRENCY: "1",
    });
    for (let a = 0; a < AGENTS; a++) {
      const created = await fetch(`${server.url}/agents`, {
        method: "POST",
        headers: admin,
        body: JSON.stringify({
          aid: `soak-${a}`,
          quota: {
            message_limit_total: null,
            message_limit_daily: null,
            message_limit_monthly: null,
          },
        }),
      });
      expect(created.status).toBe(201);
    }
    // One connection of the test's own on the server's database; left out of every count.
    monitor = postgres(database.url, { max: 1, onnotice: () => {} });
  });

  afterAll(async () => {
    await monitor?.end({ timeout: 5 });
    await server?.stop();
    await database?.drop();
    if (probeDir) await rm(probeDir, { recursive: true, force: true });
  });

  it(`${fmt(REQUESTS)} chats at ${fmt(RATE)} req/s: bounded memory, no leaked connections, every 200 stored`, {
    timeout: durationS * 2000 + 120_000,
  }, async () => {
    if (!server || !monitor) throw new Error("not started");
    const sql = monitor;
    const probeFile = path.join(probeDir as string, "probe.jsonl");
    const port = Number(new URL(server.url).port);
    const tree = processTree(server.pid);
    // The process that really serves: the one holding the listening socket.
    const serving = listeningPids(port, tree);
    expect(serving.length, "the process listening on the port is found").toBeGreaterThan(0);
    const servingPid = serving[0] as number;
    const describeProcess = (pid: number) =>
      `${pid}${pid === tree[0] ? ` (started by ${parentOf(pid)}, this is ${process.pid})` : ""}${pid === servingPid ? " (serves)" : ""}: ${(readProc(pid, "cmdline") ?? "").split("\0").join(" ").trim().slice(0, 60)}`;
    console.info(`soak: processes: ${tree.map(describeProcess).join("; ")}`);

    // The server's connections, each with the start of the transaction or statement it is in.
    const pgConnectionRows = () => sql<
      { pid: number; state: string | null; since: string | null; query: string }[]
    >`
        SELECT pid, state, coalesce(xact_start, query_start)::text AS since, left(query, 100) AS query
        FROM pg_stat_activity
        WHERE datname = ${databaseName} AND backend_type = 'client backend'
          AND pid <> pg_backend_pid()`;
    const byState = (rows: { state: string | null }[]) => {
      const counts: Record<string, number> = {};
      for (const row of rows) counts[row.state ?? "null"] = (counts[row.state ?? "null"] ?? 0) + 1;
      return counts;
    };
    const pgConnections = async () => byState(await pgConnectionRows());
    const total = (counts: Record<string, number>) =>
      Object.values(counts).reduce((sum, n) => sum + n, 0);

    // --- Load: open loop on a timer, bounded in flight, keep-alive connections.
    const pool = new Pool(server.url, {
      connections: MAX_OUTSTANDING,
      pipelining: 1,
      keepAliveTimeout: 60_000,
    });
    const latencies = new Float64Array(REQUESTS);
    const statuses = new Map<number, number>();
    const okByAgent = new Array<number>(AGENTS).fill(0);
    let badReplies = 0;
    let firstBadReply: string | undefined;
    let errors = 0;
    let firstError: string | undefined;
    let sent = 0;
    let completed = 0;
    let failures = 0;
    let outstanding = 0;
    let throttledTicks = 0;
    let maxLagMs = 0;

    const send = async (i: number) => {
      const agent = i % AGENTS;
      const chatId = `c${Math.floor(i / AGENTS) % CHAT_IDS}`;
      const q = `soak ${i}`;
      const started = performance.now();
      try {
        const response = await pool.request({
          path: `/soak-${agent}/chat?q=${encodeURIComponent(q)}&chat_id=${chatId}`,
          method: "GET",
          headers: { accept: "text/plain" },
        });
        const text = await response.body.text();
        latencies[i] = performance.now() - started;
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
        if (response.statusCode === 200) {
          okByAgent[agent] = (okByAgent[agent] as number) + 1;
          if (text !== `echo: ${q}` && !text.startsWith(`echo: ${q} (`)) {
            badReplies++;
            firstBadReply ??= text.slice(0, 200);
          }
        } else {
          failures++;
          firstBadReply ??= `${response.statusCode}: ${text.slice(0, 200)}`;
        }
      } catch (error) {
        latencies[i] = performance.now() - started;
        failures++;
        errors++;
        firstError ??= String(error);
      } finally {
        outstanding--;
        completed++;
      }
    };

    // A cold server first answers slowly: warm it, a few requests at a time, before the clock.
    let prewarmOk = 0;
    const prewarmOkByAgent = new Array<number>(AGENTS).fill(0);
    await Promise.all(
      Array.from({ length: 4 }, async (_, worker) => {
        for (let i = worker; i < PREWARM_REQUESTS; i += 4) {
          const agent = i % AGENTS;
          const response = await pool.request({
            path: `/soak-${agent}/chat?q=warm&chat_id=warm-${i % 20}`,
            method: "GET",
          });
          await response.body.text();
          if (response.statusCode === 200) {
            prewarmOk++;
            prewarmOkByAgent[agent] = (prewarmOkByAgent[agent] as number) + 1;
          }
        }
      }),
    );
    // The live heap before the load (forced collections then, not during the load, whose
    // course of memory they would change).
    const startHeap = await heapAfterGc(probeFile, servingPid);
    const loadBefore = loadavg();

    const samples: Sample[] = [];
    const warmUpAt = Math.ceil(REQUESTS * WARM_UP_FRACTION);
    let warmUpSampleIndex: number | undefined;
    let loading = true;
    let sampling = false;
    let lastSample = { at: performance.now(), completed: 0 };
    const t0 = performance.now();

    const sample = async () => {
      if (sampling) return;
      sampling = true;
      try {
        const now = performance.now();
        const rss: Record<number, number> = {};
        for (const pid of tree) {
          const kb = residentKb(pid);
          if (kb !== undefined) rss[pid] = kb / 1024;
        }
        const done = completed;
        const pg = await pgConnections();
        samples.push({
          t: (now - t0) / 1000,
          sent,
          completed: done,
          outstanding,
          failures,
          rate: ((done - lastSample.completed) * 1000) / (now - lastSample.at),
          rss,
          fds: openFds(servingPid),
          pg,
          pgTotal: total(pg),
          load: loadavg()[0] as number,
          loading,
        });
        lastSample = { at: now, completed: done };
        if (warmUpSampleIndex === undefined && done >= warmUpAt) {
          warmUpSampleIndex = samples.length - 1;
        }
      } finally {
        sampling = false;
      }
    };
    const sampler = setInterval(() => void sample(), 1000);

    await new Promise<void>((resolve) => {
      const tick = () => {
        const elapsedMs = performance.now() - t0;
        const due = Math.min(REQUESTS, Math.floor((elapsedMs / 1000) * RATE) + 1);
        if (sent < due && outstanding >= MAX_OUTSTANDING) throttledTicks++;
        while (sent < due && outstanding < MAX_OUTSTANDING) {
          maxLagMs = Math.max(maxLagMs, elapsedMs - (sent / RATE) * 1000);
          outstanding++;
          void send(sent++);
        }
        if (sent >= REQUESTS) {
          clearInterval(timer);
          resolve();
        }
      };
      const timer = setInterval(tick, 5);
    });
    while (outstanding > 0) await sleep(5);
    const loadSeconds = (performance.now() - t0) / 1000;
    await sample();
    loading = false;
    clearInterval(sampler);
    while (sampling) await sleep(10);
    await pool.close();

    const endHeap = await heapAfterGc(probeFile, servingPid);
    // At rest: what the pool keeps open, and in what state.
    await sleep(1000);
    // The scheduler's tick opens two short transactions a second even at rest, so a look may
    // catch one: a leaked transaction or statement is the same one still there a moment later.
    const atRestRows = await pgConnectionRows();
    const atRest = byState(atRestRows);
    const busyAtRest = atRestRows.filter((row) => row.state !== "idle");
    await sleep(2000);
    const later = await pgConnectionRows();
    const leftOpen = busyAtRest
      .filter((a) =>
        later.some((b) => b.state !== "idle" && b.pid === a.pid && b.since === a.since),
      )
      .map((c) => `${c.state} since ${c.since}: ${c.query}`);

    // --- The database: exactly two messages and one quota use per 200.
    const ok = (statuses.get(200) ?? 0) + prewarmOk;
    const loadAfter = loadavg();
    const [messages] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM chat_messages`;
    const [threads] = await sql<{ n: number; messages: number }[]>`
        SELECT count(*)::int AS n, coalesce(sum(message_count), 0)::int AS messages FROM chat_threads`;
    const quotas = await sql<{ aid: string; total: number }[]>`
        SELECT aid, message_count_total AS total FROM agent_quotas WHERE aid LIKE 'soak-%' ORDER BY aid`;

    // --- Stopping: the server closes its pool.
    await server.stop();
    let afterStop = total(await pgConnections());
    for (let i = 0; i < 50 && afterStop > 0; i++) {
      await sleep(100);
      afterStop = total(await pgConnections());
    }

    // --- Figures.
    const loadSamples = samples.filter((s) => s.loading);
    const warmIndex = warmUpSampleIndex ?? 0;
    const afterWarmUp = loadSamples.slice(warmIndex, warmIndex + MEDIAN_OF);
    const last = loadSamples.slice(-MEDIAN_OF);
    const steady = loadSamples.slice(warmIndex);
    const sortedLatencies = latencies.slice(0, sent).sort();
    const perProcess = tree.map((pid) => {
      const of = (list: Sample[]) =>
        list.map((s) => s.rss[pid]).filter((v): v is number => v !== undefined);
      const warm = median(of(afterWarmUp));
      const end = median(of(last));
      const max = Math.max(...of(loadSamples));
      const perThousand =
        slope(
          steady
            .filter((s) => s.rss[pid] !== undefined)
            .map((s) => [s.completed, s.rss[pid] as number]),
        ) * 1000;
      return { pid, warm, end, max, growth: end - warm, perThousand };
    });
    const pgMax = Math.max(...loadSamples.map((s) => s.pgTotal));
    const pgAfterWarmUp = Math.max(
      ...loadSamples.slice(0, warmIndex + MEDIAN_OF).map((s) => s.pgTotal),
    );
    const pgEnd = loadSamples.at(-1)?.pgTotal ?? Number.NaN;
    const rates = steady.slice(1, -1).map((s) => s.rate);
    const fdsWarm = median(afterWarmUp.map((s) => s.fds ?? Number.NaN));
    const fdsEnd = median(last.map((s) => s.fds ?? Number.NaN));
    const heapGrowth = startHeap && endHeap ? mb(endHeap.heapUsed - startHeap.heapUsed) : undefined;
    const achieved = REQUESTS / loadSeconds;

    const byStatus = [...statuses].map(([status, n]) => `${status}×${n}`).join(" ");
    const rssLine = perProcess
      .map(
        (p) =>
          `pid ${p.pid}${p.pid === servingPid ? " (serves)" : ""}: after warm-up ${fmt(p.warm, 1)} / end ${fmt(p.end, 1)} / max ${fmt(p.max, 1)} MB (growth ${fmt(p.growth, 1)} MB, slope ${fmt(p.perThousand, 2)} MB per 1,000 requests)`,
      )
      .join("; ");
    const heapLine =
      startHeap && endHeap
        ? `live heap (after full GCs): before the load ${fmt(mb(startHeap.heapUsed), 1)} / end ${fmt(mb(endHeap.heapUsed), 1)} MB (rss then ${fmt(mb(startHeap.rss), 1)} / ${fmt(mb(endHeap.rss), 1)} MB, external ${fmt(mb(startHeap.external), 1)} / ${fmt(mb(endHeap.external), 1)} MB)`
        : "heap: no probe line";
    console.info(
      [
        `soak: ${fmt(REQUESTS)} requests (${byStatus}, ${errors} errors, ${badReplies} wrong replies) at ${fmt(RATE)} req/s asked, ${fmt(achieved, 1)} req/s achieved (per-second rate after warm-up: min ${fmt(Math.min(...rates), 0)}, median ${fmt(median(rates), 0)}, max ${fmt(Math.max(...rates), 0)}), ${fmt(loadSeconds, 1)} s; in flight max ${Math.max(...loadSamples.map((s) => s.outstanding))}, cap hit on ${throttledTicks} ticks, max send lag ${fmt(maxLagMs, 0)} ms`,
        `soak: latency p50 ${fmt(percentile(sortedLatencies, 50), 1)} ms, p99 ${fmt(percentile(sortedLatencies, 99), 1)} ms, max ${fmt(sortedLatencies.at(-1) ?? Number.NaN, 1)} ms`,
        `soak: RSS ${rssLine}`,
        `soak: ${heapLine}`,
        `soak: PG connections max ${pgMax} (pool ${POOL_MAX}), by the end of warm-up ${pgAfterWarmUp}, end of load ${pgEnd}, at rest ${JSON.stringify(atRest)} (busy ${busyAtRest.length}, still busy 2 s later ${leftOpen.length}), after stop ${afterStop}; server fds after warm-up ${fdsWarm}, end ${fdsEnd}`,
        `soak: stored ${messages?.n} messages in ${threads?.n} threads (threads say ${threads?.messages}); quota uses ${quotas.map((q) => q.total).join("/")} for 200s ${okByAgent.map((n, a) => n + (prewarmOkByAgent[a] as number)).join("/")} (${prewarmOk} of them in the pre-warm); machine load average before/after ${loadBefore.map((l) => fmt(l, 2)).join(" ")} / ${loadAfter.map((l) => fmt(l, 2)).join(" ")}`,
        `soak: timeline (t s: req/s, RSS MB serving, PG conns, in flight, failures so far, load avg): ${samples
          .filter((_, i) => i % 10 === 0 || i === samples.length - 1)
          .map(
            (s) =>
              `${fmt(s.t, 0)}: ${fmt(s.rate, 0)}, ${fmt(s.rss[servingPid] ?? Number.NaN, 0)}, ${s.pgTotal}, ${s.outstanding}, ${s.failures}, ${fmt(s.load, 1)}`,
          )
          .join(" | ")}`,
      ].join("\n"),
    );

    // --- Assertions: each is checked and reported, whichever fail.
    expect.soft(prewarmOk, "every pre-warm request answered 200").toBe(PREWARM_REQUESTS);
    expect.soft(firstError, "no request failed").toBeUndefined();
    expect.soft(statuses.get(200), firstBadReply).toBe(REQUESTS);
    expect.soft(badReplies, firstBadReply).toBe(0);
    // The rate achieved is reported above, not asserted: a shared machine decides it, and speed
    // is the benchmark's business. What must hold at any rate is below.
    expect.soft(loadSamples.length).toBeGreaterThan(2 * MEDIAN_OF);

    // The pool opens connections as bursts need them, up to its cap, whenever a burst comes: 19
    // open after warm-up and 20 at the end is a pool reaching its cap, not a leak (a check that
    // the end had no more than the warm-up failed on exactly that once). A transaction left open
    // is still open a moment after the load, a connection never given back leaves the pool short
    // and the requests after it waiting (no request may fail), and every one must close at the stop:
    // those are the leak checks.
    expect.soft(pgMax, "never more connections than the pool's cap").toBeLessThanOrEqual(POOL_MAX);
    expect.soft(total(atRest)).toBeLessThanOrEqual(POOL_MAX);
    expect.soft(leftOpen, "no transaction or statement left open at rest").toEqual([]);
    expect.soft(afterStop, "the server closes its connections when it stops").toBe(0);

    for (const p of perProcess) {
      expect.soft(p.max, `pid ${p.pid}: max RSS`).toBeLessThanOrEqual(RSS_CEILING_MB);
      expect
        .soft(p.growth, `pid ${p.pid}: RSS growth after warm-up`)
        .toBeLessThanOrEqual(RSS_GROWTH_BOUND_MB);
    }
    if (heapGrowth !== undefined) {
      expect
        .soft(heapGrowth, "live heap growth over the load")
        .toBeLessThanOrEqual(HEAP_GROWTH_BOUND_MB);
    }

    expect.soft(messages?.n).toBe(2 * ok);
    expect.soft(threads?.messages).toBe(2 * ok);
    // The pre-warm's 20 threads, and the soak's.
    expect.soft(threads?.n).toBe(Math.min(REQUESTS, AGENTS * CHAT_IDS) + 20);
    expect
      .soft(quotas.map((q) => q.total))
      .toEqual(okByAgent.map((n, a) => n + (prewarmOkByAgent[a] as number)));
  });
});
