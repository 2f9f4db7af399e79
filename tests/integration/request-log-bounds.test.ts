import { sql } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { startHousekeeping } from "@/server/frame/housekeeping";
import { fixedClock } from "@/server/kit/clock";
import {
  EXACT_OVERALL,
  EXACT_PER_CLIENT,
  purgeOldRequests,
  type RequestEntry,
  RequestLog,
  requestBreakdown,
} from "@/server/request-log";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";
import { insertBareAgent } from "../helpers/generic-plan";

const START = "2026-11-24T09:00:00.000Z";
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const at = (ms: number) => new Date(Date.parse(START) + ms);

/** An entry as the chat engine writes it: a reply, unless told otherwise. */
function entry(fields: Partial<RequestEntry> = {}): RequestEntry {
  return {
    started_at: new Date(START),
    via: "chat",
    aid: "real",
    caller: "admin",
    chat_id: "default",
    status: 200,
    code: null,
    latency_ms: 12,
    model: "gpt-4o-mini",
    input_tokens: 10,
    output_tokens: 5,
    cost: null,
    request_id: null,
    ...fields,
  };
}

/** A refusal naming no agent, from the client whose address hashes to `client`. */
const miss = (client: string, i: number, started = START): RequestEntry =>
  entry({
    started_at: new Date(started),
    aid: `nobody-${i}`,
    caller: `addr:${client}`,
    status: 404,
    code: "agent_not_found",
    model: null,
    input_tokens: null,
    output_tokens: null,
    client,
  });

async function write(db: Db, entries: RequestEntry[]): Promise<void> {
  const log = new RequestLog(db);
  for (const one of entries) log.record(one);
  await log.close();
}

type Tally = { caller: string; entries: number; stands_for: number; exact: number };

/** Entries and the requests they stand for, by caller. */
async function tally(db: Db): Promise<Record<string, Omit<Tally, "caller">>> {
  const rows = rowsOf<Tally>(
    await db.execute(sql`SELECT caller, count(*)::int AS entries,
        sum(stands_for)::int AS stands_for, (count(*) FILTER (WHERE stands_for = 1))::int AS exact
      FROM request_log GROUP BY caller`),
  );
  return Object.fromEntries(rows.map(({ caller, ...rest }) => [caller, rest]));
}

/**
 * What one client can add to the request log (the review's flood: refusals naming no agent, one
 * entry each), how long entries are kept whatever their number, and the breakdown read from the
 * sums the triggers keep, on both databases.
 */
describe.each(DATABASE_KINDS)("the request log's bounds on %s", (kind) => {
  const clock = fixedClock(START);
  const testDatabase = useTestDatabase(kind, { clock, start: START });

  it("samples a client's refusals naming no agent past its first 100 an hour, and no one else's", async () => {
    const { db } = testDatabase();
    const flood = Array.from({ length: 1000 }, (_, i) => miss("a", i));
    const other = Array.from({ length: 150 }, (_, i) => miss("b", i));
    // From the same address: replies, and refusals of an agent that exists (no key).
    await insertBareAgent(db, "real");
    const real = Array.from({ length: 40 }, (_, i) => entry({ request_id: `real-${i}` }));
    const refused = Array.from({ length: 150 }, () =>
      entry({ caller: "wallet:0xab", client: "a", status: 401, code: "key_required", model: null }),
    );
    // A refusal before the agent was looked up (no model slot) is judged by its aid too.
    const busy = Array.from({ length: 120 }, (_, i) => ({
      ...miss("c", i),
      status: 503,
      code: "service_unavailable",
    }));
    // Interleaved, as they arrive; the recorder writes them 500 to a statement.
    const all = flood.flatMap((one, i) => [one, ...(i < 150 ? [other[i] as RequestEntry] : [])]);
    all.splice(500, 0, ...real, ...refused, ...busy);
    await write(db, all);

    expect(EXACT_PER_CLIENT).toBe(100);
    expect(await tally(db)).toEqual({
      // The first 100 one by one, then one entry for every 10, each standing for 10.
      "addr:a": { entries: 100 + 90, stands_for: 1000, exact: 100 },
      // Another address is counted apart: its first 100, then 5 of 10.
      "addr:b": { entries: 105, stands_for: 150, exact: 100 },
      "addr:c": { entries: 102, stands_for: 120, exact: 100 },
      // Real agents' entries: every one, one each, whatever the client.
      admin: { entries: 40, stands_for: 40, exact: 40 },
      "wallet:0xab": { entries: 150, stands_for: 150, exact: 150 },
    });
    // The next hour counts anew.
    await write(
      db,
      Array.from({ length: 3 }, (_, i) => miss("a", i, at(HOUR).toISOString())),
    );
    expect((await tally(db))["addr:a"]).toEqual({ entries: 193, stands_for: 1003, exact: 103 });
  });

  it("keeps the coarser of a client's steps and everyone's, so many addresses are bounded too", async () => {
    const { db } = testDatabase();
    expect(EXACT_OVERALL).toBe(10_000);
    // 12,000 from one address: 100, then 90 of every 10, 90 of every 100, 2 of every 1,000.
    await write(
      db,
      Array.from({ length: 12_000 }, (_, i) => miss("one", i)),
    );
    expect((await tally(db))["addr:one"]).toEqual({
      entries: 100 + 90 + 90 + 2,
      stands_for: 12_000,
      exact: 100,
    });
    // The hour's 12,001st to 13,000th, each from an address of its own: every 100th of all.
    await write(
      db,
      Array.from({ length: 1000 }, (_, i) => miss(`many-${i}`, i)),
    );
    const [spread] = rowsOf<{ entries: number; stands_for: number }>(
      await db.execute(sql`SELECT count(*)::int AS entries, sum(stands_for)::int AS stands_for
        FROM request_log WHERE caller LIKE 'addr:many-%'`),
    );
    expect(spread).toEqual({ entries: 10, stands_for: 1000 });
  });

  it("counts one client's refusals exactly across processes writing at once", async () => {
    const { db } = testDatabase();
    // Four recorders (as four processes would), each with 250 of the client's refusals and
    // others' in another order, written at the same moment.
    const logs = Array.from({ length: 4 }, () => new RequestLog(db));
    for (const [n, log] of logs.entries())
      for (let i = 0; i < 250; i++) {
        const own = miss("shared", n * 250 + i);
        const others = miss(`other-${n % 2 ? i % 3 : 2 - (i % 3)}`, i);
        for (const one of n % 2 ? [own, others] : [others, own]) log.record(one);
      }
    await Promise.all(logs.map((log) => log.close()));
    expect((await tally(db))["addr:shared"]).toEqual({
      entries: 190,
      stands_for: 1000,
      exact: 100,
    });
  });

  it("purges every entry past REQUEST_LOG_DAYS at once, however many, from the housekeeping", async () => {
    const { db } = testDatabase();
    // 120,000 entries 15 days old (more than the old purge's 100,000 a round), and 10 recent.
    await db.execute(sql`
      INSERT INTO request_log (started_at, via, aid, caller, chat_id, status, latency_ms)
      SELECT ${START}::timestamptz - interval '15 days' + i * interval '1 millisecond', 'chat',
        'old', 'admin', 'default', 200, 1
      FROM generate_series(1, 120000) AS i`);
    await write(
      db,
      Array.from({ length: 10 }, (_, i) => entry({ started_at: at(i * 1000) })),
    );
    clock.advance(HOUR);
    const stop = startHousekeeping(
      { db, clock },
      { llmTimeoutMs: 60_000, requestLogDays: 14, auditRetentionDays: 365 },
    );
    try {
      // Its first round, 5 s on.
      await vi.waitFor(async () => expect((await tally(db)).admin?.entries).toBe(10), {
        timeout: 60_000,
        interval: 500,
      });
    } finally {
      stop();
    }
    const count = async (table: string) =>
      rowsOf<{ n: number }>(await db.execute(sql.raw(`SELECT count(*)::int AS n FROM ${table}`)))[0]
        ?.n;
    expect(await count("request_log")).toBe(10);
    // The sums went with them: the hour and the day of the 10 are left.
    expect(await count("request_log_hours")).toBe(1);
    expect(await count("request_log_days")).toBe(1);
    const byModel = await requestBreakdown({ db }, { by: "model" });
    expect(byModel.groups.map((g) => [g.group, g.requests])).toEqual([["gpt-4o-mini", 10]]);
    expect(await purgeOldRequests(db, clock.now(), 14)).toBe(0);
  });

  it("answers the breakdown from the sums exactly as from the entries, for any range", async () => {
    const { db } = testDatabase();
    // Three days of entries, one every 97 seconds, over agents, models, callers and statuses;
    // some refusals stand for 10 (a sample's entry).
    await db.execute(sql`
      INSERT INTO agents (aid, name, autonomous_enabled, autonomous_minutes, created_at, updated_at)
      VALUES ('keyed', 'keyed', false, 60, now(), now())`);
    await db.execute(sql`
      INSERT INTO agent_keys (id, aid, name, secret_hash, created_at)
      VALUES ('k1', 'keyed', 'partner', 'not a hash', now())`);
    await db.execute(sql`
      INSERT INTO request_log (started_at, via, aid, caller, chat_id, status, code, latency_ms,
        model, input_tokens, output_tokens, cost, stands_for, unknown_agent)
      SELECT ${START}::timestamptz + i * interval '97 seconds', 'chat',
        (ARRAY['keyed', 'other', 'third'])[i % 3 + 1],
        (ARRAY['admin', 'key:k1', 'addr:x', 'key:made-up', 'wallet:0xab'])[i % 5 + 1], 'default',
        CASE WHEN i % 7 = 0 THEN 404 WHEN i % 5 = 3 THEN 401 ELSE 200 END,
        CASE WHEN i % 7 = 0 THEN 'agent_not_found' WHEN i % 5 = 3 THEN 'invalid_key' END, 1,
        CASE WHEN i % 7 <> 0 AND i % 5 <> 3 THEN (ARRAY['m1', 'm2'])[i % 2 + 1] END,
        CASE WHEN i % 7 <> 0 AND i % 5 <> 3 THEN i % 100 END,
        CASE WHEN i % 7 <> 0 AND i % 5 <> 3 THEN i % 30 END,
        CASE WHEN i % 7 <> 0 AND i % 5 <> 3 AND i % 2 = 0 THEN (i % 100) / 1e6 END,
        CASE WHEN i % 7 = 0 AND i % 2 = 0 THEN 10 ELSE 1 END, i % 7 = 0
      FROM generate_series(0, 2700) AS i`);
    const minute = 60_000;
    const ranges: [Date | undefined, Date | undefined][] = [
      [undefined, undefined],
      [at(0), at(3 * DAY)],
      [at(10 * minute), at(50 * minute)], // within one hour
      [at(40 * minute), at(45 * minute)],
      [at(10 * minute), at(20 * minute)],
      [at(17 * minute), at(DAY + 41 * minute)], // mid-hour ends a day apart
      [at(47 * minute), at(2 * DAY + 13 * minute)],
      [at(15 * HOUR), at(2 * DAY - 1)], // whole days and hours, the dashboard's end
      [undefined, at(DAY + 5 * HOUR + 29 * minute)],
      [at(DAY + 30 * minute), undefined],
      [at(HOUR + 30 * minute), at(HOUR + 31 * minute)],
    ];
    for (const by of ["model", "key"] as const)
      for (const aid of [undefined, "keyed"])
        for (const [from, to] of ranges) {
          const input = { by, aid, from, to };
          const answered = await requestBreakdown({ db }, input);
          expect(sorted(answered.groups), JSON.stringify(input)).toEqual(
            sorted(await fromEntries(db, input)),
          );
        }
    // Key ids not let in (made up, or naming no agent) are one group, not one each.
    const byKey = await requestBreakdown({ db }, { by: "key" });
    expect(byKey.groups.map((g) => g.label).sort()).toEqual([
      "agent keys not let in",
      "anonymous addresses",
      "key 'partner'",
      "the admin",
      "wallets",
    ]);
  });
});

type Group = Awaited<ReturnType<typeof requestBreakdown>>["groups"][number];
const sorted = (groups: Group[]) =>
  [...groups].sort((a, b) => String(a.group).localeCompare(String(b.group)));

/** The breakdown's groups summed from the entries themselves, as the breakdown was before sums. */
async function fromEntries(
  db: Db,
  input: { by: "model" | "key"; aid?: string; from?: Date; to?: Date },
): Promise<Group[]> {
  const group =
    input.by === "model"
      ? sql`model`
      : sql`request_log_caller_group(caller, status, code, unknown_agent)`;
  const rows = rowsOf<{
    grp: string | null;
    requests: number;
    delivered: number;
    input: number;
    output: number;
    cost: number | null;
  }>(
    await db.execute(sql`SELECT ${group} AS grp, sum(stands_for)::float8 AS requests,
        (count(*) FILTER (WHERE status = 200))::float8 AS delivered,
        coalesce(sum(input_tokens), 0)::float8 AS input,
        coalesce(sum(output_tokens), 0)::float8 AS output, sum(cost)::float8 AS cost
      FROM request_log
      WHERE ${input.aid === undefined ? sql`true` : sql`aid = ${input.aid} AND NOT unknown_agent`}
        AND ${input.from ? sql`started_at >= ${input.from.toISOString()}::timestamptz` : sql`true`}
        AND ${input.to ? sql`started_at < ${input.to.toISOString()}::timestamptz` : sql`true`}
      GROUP BY 1`),
  );
  const labels: Record<string, string> = {
    addr: "anonymous addresses",
    admin: "the admin",
    wallet: "wallets",
    key: "agent keys not let in",
    "key:k1": "key 'partner'",
  };
  return rows.map((row) => ({
    group: row.grp,
    label:
      input.by === "model"
        ? (row.grp ?? "no reply (refused or failed)")
        : (labels[row.grp ?? ""] ?? `key ${String(row.grp).slice(4)}`),
    requests: row.requests,
    delivered: row.delivered,
    input_tokens: row.input,
    output_tokens: row.output,
    cost: row.cost,
  }));
}
