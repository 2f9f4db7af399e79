import { type SQL, sql } from "drizzle-orm";
import type { z } from "zod";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { requestLog, requestLogDays, requestLogHours } from "@/db/schema";
import { withCustomPlans } from "./custom-plans";
import { requestLogOf } from "./recorder";
import type { requestBreakdownInputSchema, requestBreakdownSchema } from "./schema";

type Input = z.output<typeof requestBreakdownInputSchema>;
type Output = z.output<typeof requestBreakdownSchema>;

/** The groups one answer holds at most: more models or keys than a table a person reads. */
const MAX_GROUPS = 100;

const KINDS: Record<string, string> = {
  addr: "anonymous addresses",
  admin: "the admin",
  wallet: "wallets",
  key: "agent keys not let in",
};

/** Entries read one by one, counted in (1) or out (-1) of the sums. */
type Span = { from: Date; to: Date; sign: 1 | -1 };
/** Sums read by whole hours or days, from `from` (or the first) to `to` (or the last). */
type Sums = { span: "hour" | "day"; from?: Date; to?: Date };

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const floorTo = (at: number, unit: number) => Math.floor(at / unit) * unit;

/**
 * A range as sums and entries: whole days, the whole hours beside them, and the entries of at
 * most half an hour at each end. An end inside an hour either leaves that hour out and adds its
 * entries within the range, or counts the hour and takes away those outside, whichever reads
 * fewer entries.
 */
function rangeOf(from?: Date, to?: Date): { sums: Sums[]; spans: Span[] } {
  const spans: Span[] = [];
  let first: number | undefined;
  let end: number | undefined;
  if (from) {
    const hour = floorTo(from.getTime(), HOUR_MS);
    const into = from.getTime() - hour;
    first = into <= HOUR_MS / 2 ? hour : hour + HOUR_MS;
    if (into > 0 && first === hour) spans.push({ from: new Date(hour), to: from, sign: -1 });
    if (first > hour) spans.push({ from, to: new Date(first), sign: 1 });
  }
  if (to) {
    const hour = floorTo(to.getTime(), HOUR_MS);
    const into = to.getTime() - hour;
    end = into < HOUR_MS / 2 ? hour : hour + HOUR_MS;
    if (into > 0 && end === hour) spans.push({ from: new Date(hour), to, sign: 1 });
    if (end > hour) spans.push({ from: to, to: new Date(end), sign: -1 });
  }
  // Whole days between, and the hours before and after them.
  const firstDay = first === undefined ? undefined : floorTo(first + DAY_MS - 1, DAY_MS);
  const endDay = end === undefined ? undefined : floorTo(end, DAY_MS);
  const date = (at: number | undefined) => (at === undefined ? undefined : new Date(at));
  if (firstDay !== undefined && endDay !== undefined && firstDay >= endDay)
    return { sums: [{ span: "hour", from: date(first), to: date(end) }], spans };
  const sums: Sums[] = [{ span: "day", from: date(firstDay), to: date(endDay) }];
  if (first !== undefined && first < (firstDay as number))
    sums.push({ span: "hour", from: date(first), to: date(firstDay) });
  if (end !== undefined && (endDay as number) < end)
    sums.push({ span: "hour", from: date(endDay), to: date(end) });
  return { sums, spans };
}

/** The request log's entries grouped by model or key, most tokens first. */
export async function requestBreakdown({ db }: { db: Db }, input: Input): Promise<Output> {
  // This process's own entries first, as the listing does.
  await requestLogOf(db).flush();
  const rows = await withCustomPlans(db, async (planned) =>
    rowsOf<Group>(await planned.execute(breakdownStatement(input))),
  );
  return {
    by: input.by,
    groups: rows.map((row) => ({
      group: row.grp,
      label: labelOf(input.by, row.grp, row.key_name),
      requests: Number(row.requests),
      delivered: Number(row.delivered),
      input_tokens: Number(row.input),
      output_tokens: Number(row.output),
      cost: row.cost === null ? null : Number(row.cost),
    })),
  };
}

/** The breakdown's one statement: the sums and entries of its range, grouped. */
export function breakdownStatement(input: Input): SQL {
  const { sums, spans } = rangeOf(input.from, input.to);
  const t = requestLog;
  const summed = sums.map(({ span, from, to }) => {
    const h = span === "hour" ? requestLogHours : requestLogDays;
    return sql`SELECT ${input.by === "model" ? h.model : h.callerGroup} AS grp,
        ${h.requests} AS requests, ${h.delivered} AS delivered, ${h.inputTokens} AS input,
        ${h.outputTokens} AS output, ${h.cost} AS cost, ${h.priced} AS priced
      FROM ${h}
      WHERE ${input.aid === undefined ? sql`true` : sql`${h.aid} = ${input.aid}`}
        ${from ? sql`AND ${h.startsAt} >= ${from.toISOString()}::timestamptz` : sql``}
        ${to ? sql`AND ${h.startsAt} < ${to.toISOString()}::timestamptz` : sql``}`;
  });
  // The entries as the sums count them (request_log_sums_apply in migration 0018).
  const group =
    input.by === "model"
      ? sql`${t.model}`
      : sql`request_log_caller_group(${t.caller}, ${t.status}, ${t.code}, ${t.unknownAgent})`;
  const entries = spans.map(({ from, to, sign }) => {
    const signed = (value: SQL) => sql`${sql.raw(String(sign))} * ${value}`;
    return sql`SELECT ${group}, ${signed(sql`${t.standsFor}`)},
        ${signed(sql`(${t.status} = 200)::int`)}, ${signed(sql`coalesce(${t.inputTokens}, 0)`)},
        ${signed(sql`coalesce(${t.outputTokens}, 0)`)}, ${signed(sql`coalesce(${t.cost}, 0)`)},
        ${signed(sql`(${t.cost} IS NOT NULL)::int`)}
      FROM ${t}
      WHERE ${input.aid === undefined ? sql`true` : sql`${t.aid} = ${input.aid} AND NOT ${t.unknownAgent}`}
        AND ${t.startedAt} >= ${from.toISOString()}::timestamptz
        AND ${t.startedAt} < ${to.toISOString()}::timestamptz`;
  });
  return sql`SELECT grp,
      sum(requests)::float8 AS requests, sum(delivered)::float8 AS delivered,
      sum(input)::float8 AS input, sum(output)::float8 AS output,
      CASE WHEN sum(priced) > 0 THEN sum(cost)::float8 END AS cost,
      (SELECT name FROM agent_keys k WHERE grp LIKE 'key:%' AND k.id = substr(grp, 5))
        AS key_name
    FROM (${sql.join([...summed, ...entries], sql` UNION ALL `)}) AS parts
    GROUP BY grp
    HAVING sum(requests) > 0
    ORDER BY sum(input) + sum(output) DESC, sum(requests) DESC
    LIMIT ${MAX_GROUPS}`;
}

type Group = {
  grp: string | null;
  requests: number | string;
  delivered: number | string;
  input: number | string;
  output: number | string;
  cost: number | string | null;
  key_name: string | null;
};

function labelOf(by: Input["by"], group: string | null, keyName: string | null): string {
  if (by === "model") return group ?? "no reply (refused or failed)";
  if (group?.startsWith("key:")) return keyName ? `key '${keyName}'` : `key ${group.slice(4)}`;
  return KINDS[group ?? ""] ?? group ?? "unknown";
}
