import { and, eq, gte, lt, type SQL, sql } from "drizzle-orm";
import type { z } from "zod";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { agents, usageHourly } from "@/db/schema";
import { assertAgentExists } from "@/server/agents";
import type { DataContext } from "@/server/frame/data-context";
import type { Clock } from "@/server/kit/clock";
import { decodeCursor, encodeCursor, offsetCursor } from "@/server/pagination";
import { usageRange } from "./range";
import type {
  agentUsageInputSchema,
  agentUsageOutputSchema,
  allUsageInputSchema,
  allUsageOutputSchema,
  Granularity,
  UsagePoint,
  UsageSeries,
} from "./schema";

// Usage over time, read from `usage_hourly`, which storing replies and runs and refusing chats
// count up as they happen.

type UsageContext = DataContext;

type Figures = Omit<UsagePoint, "start">;

/** Sums of a group of hours, as numbers (bigint and numeric sums come back as text). */
const SUMS = sql`sum(${usageHourly.messages})::float8 AS messages,
  sum(${usageHourly.runs})::float8 AS runs,
  sum(${usageHourly.inputTokens})::float8 AS input_tokens,
  sum(${usageHourly.outputTokens})::float8 AS output_tokens,
  sum(${usageHourly.cost})::float8 AS cost,
  sum(${usageHourly.unpriced})::float8 AS unpriced,
  sum(${usageHourly.refusedQuota})::float8 AS refused_quota,
  sum(${usageHourly.refusedRate})::float8 AS refused_rate`;

type SumsRow = Record<keyof Figures, number | string | null>;

export async function agentUsage(
  { db, clock }: UsageContext,
  input: z.output<typeof agentUsageInputSchema>,
): Promise<z.output<typeof agentUsageOutputSchema>> {
  await assertAgentExists(db, input.aid);
  return { aid: input.aid, ...(await series(db, clock, input, eq(usageHourly.aid, input.aid))) };
}

export async function allUsage(
  { db, clock }: UsageContext,
  input: z.output<typeof allUsageInputSchema>,
): Promise<z.output<typeof allUsageOutputSchema>> {
  const found = await series(db, clock, input);
  const offset = input.cursor ? decodeCursor(input.cursor, offsetCursor).offset : 0;
  const ranked = rowsOf<SumsRow & { aid: string; name: string }>(
    await db.execute(sql`
      SELECT ${usageHourly.aid} AS aid, ${agents.name} AS name, ${SUMS}
      FROM ${usageHourly} JOIN ${agents} ON ${agents.aid} = ${usageHourly.aid}
      WHERE ${usageHourly.hour} >= ${found.from}::timestamptz
        AND ${usageHourly.hour} < ${found.to}::timestamptz
      GROUP BY ${usageHourly.aid}, ${agents.name}
      HAVING sum(${usageHourly.messages} + ${usageHourly.runs} + ${usageHourly.inputTokens}
        + ${usageHourly.outputTokens}) > 0
      ORDER BY sum(${usageHourly.inputTokens} + ${usageHourly.outputTokens}) DESC,
        ${usageHourly.aid}
      LIMIT ${input.top + 1} OFFSET ${offset}`),
  );
  const page = ranked.slice(0, input.top);
  return {
    ...found,
    top_agents: page.map(({ aid, name, ...sums }) => {
      const { refused_quota: _q, refused_rate: _r, ...rest } = figuresOf(sums);
      return { aid, name, ...rest };
    }),
    next_cursor: ranked.length > input.top ? encodeCursor({ offset: offset + input.top }) : null,
  };
}

/** The buckets of the range, each with its sums (0 where nothing happened), and their totals. */
async function series(
  db: Db,
  clock: Clock,
  input: { from?: Date; to?: Date; granularity: Granularity },
  which?: SQL,
): Promise<UsageSeries> {
  const range = usageRange(input, clock.now());
  const bucket = sql`date_trunc(${input.granularity}, ${usageHourly.hour}, 'UTC')`;
  const rows = rowsOf<SumsRow & { bucket: string | Date }>(
    await db.execute(sql`
      SELECT ${bucket} AS bucket, ${SUMS} FROM ${usageHourly}
      WHERE ${and(which, gte(usageHourly.hour, range.from), lt(usageHourly.hour, range.to))}
      GROUP BY 1`),
  );
  const byStart = new Map(rows.map((row) => [new Date(row.bucket).getTime(), figuresOf(row)]));
  const points = range.starts.map((start) => ({
    start: start.toISOString(),
    ...(byStart.get(start.getTime()) ?? EMPTY),
  }));
  return {
    granularity: input.granularity,
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    points,
    totals: total(points),
    next_from: range.nextFrom?.toISOString() ?? null,
  };
}

const EMPTY: Figures = {
  messages: 0,
  runs: 0,
  input_tokens: 0,
  output_tokens: 0,
  cost: 0,
  unpriced: 0,
  refused_quota: 0,
  refused_rate: 0,
};

function figuresOf(row: SumsRow): Figures {
  const n = (value: number | string | null) => Number(value ?? 0);
  const figures = {
    messages: n(row.messages),
    runs: n(row.runs),
    input_tokens: n(row.input_tokens),
    output_tokens: n(row.output_tokens),
    cost: n(row.cost),
    unpriced: n(row.unpriced),
    refused_quota: n(row.refused_quota),
    refused_rate: n(row.refused_rate),
  };
  return { ...figures, cost: costOf(figures) };
}

/** A cost is unknown (null) when every reply in it was unpriced, not 0. */
function costOf(figures: Figures): number | null {
  const replies = figures.messages + figures.runs;
  return replies > 0 && figures.unpriced === replies ? null : (figures.cost ?? 0);
}

function total(points: Figures[]): Figures {
  const sum = { ...EMPTY };
  for (const point of points) {
    for (const key of Object.keys(EMPTY) as (keyof Figures)[])
      sum[key] = (sum[key] ?? 0) + (point[key] ?? 0);
  }
  return { ...sum, cost: costOf(sum) };
}
