import { performance } from "node:perf_hooks";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { createDatabase, type Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import * as schema from "@/db/schema";
import {
  listRequests,
  purgeOldRequests,
  type RequestEntry,
  RequestLog,
  requestBreakdown,
} from "@/server/request-log";
import { median } from "./median";

/**
 * The request log at scale (`BENCH_ONLY=request-log`): BENCH_REQUEST_LOG_ROWS entries (default
 * 10,000,000) seeded with generate_series over 14 days, vacuumed and analysed; then each shape
 * of `GET /requests` and `GET /requests/breakdown` timed through the service's own functions
 * (prepared statements, as the service runs them), with the plan of each; then what writing and
 * purging entries sustains. Runs in the bench's throwaway database.
 */

const ROWS = Number(process.env.BENCH_REQUEST_LOG_ROWS ?? 10_000_000);
const AGENTS = 50;
const DAY_MS = 86_400_000;
/** The newest entry's instant: a whole hour, so the ranges below cut hours where they mean to. */
const END = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
const START = new Date(END.getTime() - 14 * DAY_MS);
const RARE_CALLER = "addr:00000000deadbeef";
const TIMED_RUNS = 15;

type ListInput = Parameters<typeof listRequests>[1];
type BreakdownInput = Parameters<typeof requestBreakdown>[1];
type Shape =
  | { label: string; list: Partial<ListInput>; page2?: boolean }
  | { label: string; breakdown: BreakdownInput };

const at = (msBeforeEnd: number) => new Date(END.getTime() - msBeforeEnd);

const SHAPES: Shape[] = [
  { label: "list: newest", list: {} },
  { label: "list: newest, page 2", list: {}, page2: true },
  { label: "list: aid (the busiest agent)", list: { aid: "agent-01" } },
  { label: "list: aid (a quiet agent), page 2", list: { aid: "agent-50" }, page2: true },
  { label: "list: caller (an agent key)", list: { caller: "key:k00000000001" } },
  { label: "list: caller (3 entries in 14 days)", list: { caller: RARE_CALLER } },
  { label: "list: status 429", list: { status: 429 } },
  { label: "list: status 404, page 2", list: { status: 404 }, page2: true },
  { label: "list: status failed", list: { status: "failed" } },
  { label: "list: aid + failed (a quiet agent)", list: { aid: "agent-50", status: "failed" } },
  { label: "list: aid + caller", list: { aid: "agent-01", caller: "admin" } },
  { label: "list: caller + status 401", list: { caller: RARE_CALLER, status: 401 } },
  // Two busy filters that never meet: one agent's, another agent's key.
  {
    label: "list: aid + caller, none match",
    list: { aid: "agent-01", caller: "key:k00000000200" },
  },
  {
    label: "list: one hour, 7 days ago",
    list: { from: at(7 * DAY_MS), to: at(7 * DAY_MS - 3_600_000) },
  },
  {
    label: "list: aid + a day, page 2",
    list: { aid: "agent-02", from: at(3 * DAY_MS), to: at(2 * DAY_MS) },
    page2: true,
  },
  { label: "breakdown: by model, all", breakdown: { by: "model" } },
  { label: "breakdown: by key, all", breakdown: { by: "key" } },
  { label: "breakdown: by key, aid", breakdown: { by: "key", aid: "agent-01" } },
  {
    label: "breakdown: by model, whole days (the dashboard's)",
    breakdown: {
      by: "model",
      from: new Date(
        at(10 * DAY_MS)
          .toISOString()
          .slice(0, 10),
      ),
    },
  },
  {
    label: "breakdown: by key, from/to mid-hour",
    breakdown: {
      by: "key",
      from: new Date(END.getTime() - 3 * DAY_MS - 17 * 60_000),
      to: new Date(END.getTime() - DAY_MS + 41 * 60_000),
    },
  },
  {
    label: "breakdown: by model, aid, 40 minutes",
    breakdown: {
      by: "model",
      aid: "agent-01",
      from: new Date(END.getTime() - 2 * DAY_MS + 10 * 60_000),
      to: new Date(END.getTime() - 2 * DAY_MS + 50 * 60_000),
    },
  },
];

export type RequestLogRow = { shape: string; median_ms: number; rows: number };

export async function runRequestLogBenchmarks(url: string) {
  const database = createDatabase({ kind: "postgres", url, maxConnections: 4 });
  const db = database.db;
  try {
    await database.migrate();
    const seeded = await seed(url);
    const rows: RequestLogRow[] = [];
    for (const shape of SHAPES) rows.push(await time(db, shape));
    await explainAll(url, db);
    const writes = await measureWrites(db, url);
    const purge = await measurePurge(db, url);
    return { entries: ROWS, seed_s: seeded, rows, ...writes, purge };
  } finally {
    await database.close();
  }
}

/** Entries with the spread of a busy service: a few agents take most, 90% replies, 55% anonymous. */
export async function seed(url: string): Promise<number> {
  const started = performance.now();
  const pg = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await pg`
      INSERT INTO agents (aid, name, autonomous_enabled, autonomous_minutes, created_at, updated_at)
      SELECT 'agent-' || lpad(i::text, 2, '0'), 'Agent ' || i, false, 60, now(), now()
      FROM generate_series(1, ${AGENTS}) AS i`;
    // Four agent keys an agent: k00000000001 … k00000000200.
    await pg`
      INSERT INTO agent_keys (id, aid, name, secret_hash, created_at)
      SELECT 'k' || lpad(i::text, 11, '0'), 'agent-' || lpad(((i - 1) / 4 + 1)::text, 2, '0'),
        'key ' || i, 'not a hash', now()
      FROM generate_series(1, ${AGENTS * 4}) AS i`;
    const chunk = 1_000_000;
    for (let lo = 1; lo <= ROWS; lo += chunk) {
      const hi = Math.min(ROWS, lo + chunk - 1);
      await pg.unsafe(seedChunk(lo, hi));
      console.info(`request log: seeded ${fmt(hi)} of ${fmt(ROWS)} entries`);
    }
    // A caller with three entries in 14 days: what a filter on a rare caller must find fast.
    await pg`
      INSERT INTO request_log (started_at, via, aid, caller, chat_id, status, code, latency_ms)
      SELECT ${START}::timestamptz + (i || ' days')::interval, 'chat', 'agent-03',
        ${RARE_CALLER}, 'default', 401, 'key_required', 3
      FROM generate_series(1, 3) AS i`;
    await pg`VACUUM (ANALYZE) request_log`;
    await pg.unsafe("VACUUM (ANALYZE)");
  } finally {
    await pg.end();
  }
  const seconds = (performance.now() - started) / 1000;
  console.info(`request log: ${fmt(ROWS)} entries seeded and vacuumed in ${fmt(seconds, 1)} s`);
  return seconds;
}

function seedChunk(lo: number, hi: number): string {
  const span = END.getTime() - START.getTime();
  return `
    INSERT INTO request_log (started_at, via, aid, caller, chat_id, status, code, latency_ms,
      model, input_tokens, output_tokens, cost, request_id, unknown_agent)
    SELECT started_at, via, CASE WHEN status = 404 THEN 'missing-' || (i % 1000) ELSE aid END,
      caller, 'default', status,
      CASE status WHEN 200 THEN NULL WHEN 429 THEN 'rate_limited' WHEN 401 THEN 'key_required'
        WHEN 404 THEN 'agent_not_found' WHEN 502 THEN 'provider_error'
        WHEN 499 THEN 'client_closed_request' ELSE 'service_unavailable' END,
      latency, CASE WHEN status = 200 THEN model END,
      CASE WHEN status = 200 THEN input END, CASE WHEN status = 200 THEN output END,
      CASE WHEN status = 200 AND model <> 'house-model' THEN (input + 2 * output) / 1e6 END,
      'r' || i, status = 404
    FROM (
      SELECT i,
        '${START.toISOString()}'::timestamptz + ((i - 1) * ${span / ROWS}::float8) * interval '1 millisecond' AS started_at,
        CASE WHEN r5 < 0.3 THEN 'completions' ELSE 'chat' END AS via,
        'agent-' || lpad(agent::text, 2, '0') AS aid,
        CASE WHEN r3 < 0.55 THEN 'addr:' || lpad(to_hex((r4 * 20000)::int), 16, '0')
          WHEN r3 < 0.85 THEN 'key:k' || lpad(((agent - 1) * 4 + 1 + floor(r4 * 4)::int)::text, 11, '0')
          WHEN r3 < 0.95 THEN 'admin'
          ELSE 'wallet:0x' || lpad(to_hex((r4 * 500)::int), 40, '0') END AS caller,
        CASE WHEN r2 < 0.90 THEN 200 WHEN r2 < 0.94 THEN 429 WHEN r2 < 0.96 THEN 401
          WHEN r2 < 0.97 THEN 404 WHEN r2 < 0.98 THEN 502 WHEN r2 < 0.99 THEN 499 ELSE 503 END
          AS status,
        (r5 * 3000)::int AS latency,
        (ARRAY['gpt-4o-mini', 'gpt-4o', 'house-model'])[agent % 3 + 1] AS model,
        10 + (r4 * 2000)::int AS input, 5 + (r5 * 500)::int AS output
      FROM (
        SELECT i, 1 + floor(${AGENTS} * r1 * r1)::int AS agent, r2, r3, r4, r5
        FROM (SELECT i, random() AS r1, random() AS r2, random() AS r3, random() AS r4,
            random() AS r5
          FROM generate_series(${lo}, ${hi}) AS i) AS draws
      ) AS drawn
    ) AS entries`;
}

async function inputOf(db: Db, shape: Shape): Promise<Shape> {
  if (!("list" in shape) || !shape.page2) return shape;
  const first = await listRequests({ db }, { limit: 50, ...shape.list } as ListInput);
  return { ...shape, list: { ...shape.list, cursor: first.next_cursor ?? undefined } };
}

async function call(db: Db, shape: Shape): Promise<number> {
  if ("list" in shape)
    return (await listRequests({ db }, { limit: 50, ...shape.list } as ListInput)).requests.length;
  return (await requestBreakdown({ db }, shape.breakdown)).groups.length;
}

/** The median of TIMED_RUNS calls after three untimed ones (caches and plans settle first). */
async function time(db: Db, shape: Shape): Promise<RequestLogRow> {
  const input = await inputOf(db, shape);
  let found = 0;
  for (let i = 0; i < 3; i++) found = await call(db, input);
  const times: number[] = [];
  for (let i = 0; i < TIMED_RUNS; i++) {
    const started = performance.now();
    await call(db, input);
    times.push(performance.now() - started);
  }
  const row = { shape: shape.label, median_ms: median(times), rows: found };
  console.info(`${shape.label.padEnd(52)} median ${fmt(row.median_ms, 2)} ms (${found} rows)`);
  return row;
}

/** EXPLAIN (ANALYZE, BUFFERS) of each shape's statements, caught from drizzle as they run. */
async function explainAll(url: string, db: Db) {
  const captured: { query: string; params: unknown[] }[] = [];
  const client = postgres(url, { max: 1, onnotice: () => {} });
  const logged = drizzle(client, {
    schema,
    casing: "snake_case",
    logger: { logQuery: (query, params) => captured.push({ query, params }) },
  }) as unknown as Db;
  try {
    for (const shape of SHAPES) {
      const input = await inputOf(db, shape);
      captured.length = 0;
      await call(logged, input);
      // The reads only: not the SET LOCAL that asks for plans made for the values.
      for (const { query, params } of captured.filter((q) => /^\s*(select|with)/i.test(q.query))) {
        const plan = rowsOf<{ "QUERY PLAN": string }>(
          await client.unsafe(`EXPLAIN (ANALYZE, BUFFERS) ${query}`, params as never[]),
        );
        console.info(`\n== ${shape.label}\n${plan.map((row) => row["QUERY PLAN"]).join("\n")}`);
      }
    }
  } finally {
    await client.end();
  }
}

/** Entries a second the recorder writes: real agents' (one each), then refusals of no agent. */
async function measureWrites(db: Db, url: string) {
  const log = new RequestLog(db);
  const write = async (count: number, make: (i: number) => RequestEntry) => {
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      log.record(make(i));
      // The recorder writes at 500; waiting each 500 keeps the buffer below its bound.
      if (i % 500 === 499) await log.flush();
    }
    await log.flush();
    return count / ((performance.now() - started) / 1000);
  };
  const now = new Date();
  const entry = (i: number): RequestEntry => ({
    started_at: now,
    via: "chat",
    aid: `agent-${String((i % AGENTS) + 1).padStart(2, "0")}`,
    caller: `addr:${(i % 5000).toString(16).padStart(16, "0")}`,
    chat_id: "default",
    status: 200,
    code: null,
    latency_ms: 40,
    model: "gpt-4o-mini",
    input_tokens: 100,
    output_tokens: 50,
    cost: 0.0002,
    request_id: `w${i}`,
  });
  const count = 100_000;
  const realPerSecond = await write(count, entry);
  const before = await countEntries(url);
  // A flood of refusals naming no agent, from 20 addresses.
  const strayPerSecond = await write(count, (i) => ({
    ...entry(i),
    aid: `missing-${i}`,
    caller: `addr:${(i % 20).toString(16).padStart(16, "0")}`,
    status: 404,
    code: "agent_not_found",
    model: null,
    input_tokens: null,
    output_tokens: null,
    cost: null,
    client: `client-${i % 20}`,
  }));
  const strayEntries = (await countEntries(url)) - before;
  await log.close();
  console.info(
    `request log writes: ${fmt(realPerSecond)} entries/s; refusals of no agent: ${fmt(strayPerSecond)}/s, ${fmt(count)} of them kept as ${fmt(strayEntries)} entries`,
  );
  return {
    writes_per_s: realPerSecond,
    stray_refusals_per_s: strayPerSecond,
    stray_refusals: count,
    stray_entries: strayEntries,
  };
}

async function countEntries(url: string): Promise<number> {
  const pg = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await pg<{ n: number }[]>`SELECT count(*)::int AS n FROM request_log`;
    return row?.n ?? 0;
  } finally {
    await pg.end();
  }
}

/** The purge of the oldest day: entries deleted a second. */
async function measurePurge(db: Db, url: string) {
  const before = await countEntries(url);
  const started = performance.now();
  const purged = await purgeOldRequests(db, new Date(END.getTime() + DAY_MS), 14);
  const seconds = (performance.now() - started) / 1000;
  const left = await countEntries(url);
  console.info(
    `request log purge: ${fmt(purged)} entries (of ${fmt(before)}) in ${fmt(seconds, 2)} s, ${fmt(purged / seconds)}/s; ${fmt(left)} left`,
  );
  return { purged, seconds, per_s: purged / seconds, left };
}

function fmt(n: number, digits = 0) {
  return n.toLocaleString("en", { maximumFractionDigits: digits, minimumFractionDigits: digits });
}
