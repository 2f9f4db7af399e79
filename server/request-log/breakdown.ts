import { and, eq, gte, lt, type SQL, sql } from "drizzle-orm";
import type { z } from "zod";
import type { Db } from "@/db/client";
import { requestLog } from "@/db/schema";
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
};

/** The request log's rows grouped by model or key, most tokens first. */
export async function requestBreakdown({ db }: { db: Db }, input: Input): Promise<Output> {
  // This process's own rows first, as the listing does.
  await requestLogOf(db).flush();
  const t = requestLog;
  const group: SQL<string | null> =
    input.by === "model"
      ? sql`${t.model}`
      : sql`CASE WHEN ${t.caller} LIKE 'key:%' THEN ${t.caller} ELSE split_part(${t.caller}, ':', 1) END`;
  const tokens = sql`coalesce(sum(${t.inputTokens}), 0) + coalesce(sum(${t.outputTokens}), 0)`;
  const rows = await db
    .select({
      group: group.as("breakdown_group"),
      requests: sql<number>`count(*)::int`,
      delivered: sql<number>`(count(*) FILTER (WHERE ${t.status} = 200))::int`,
      input: sql<number>`coalesce(sum(${t.inputTokens}), 0)::float8`,
      output: sql<number>`coalesce(sum(${t.outputTokens}), 0)::float8`,
      cost: sql<number | null>`sum(${t.cost})::float8`,
      keyName: sql<string | null>`(SELECT name FROM agent_keys k
        WHERE 'key:' || k.id = max(${t.caller}) AND max(${t.caller}) LIKE 'key:%')`,
    })
    .from(t)
    .where(
      and(
        input.aid === undefined ? undefined : eq(t.aid, input.aid),
        input.from === undefined ? undefined : gte(t.startedAt, input.from),
        input.to === undefined ? undefined : lt(t.startedAt, input.to),
      ),
    )
    .groupBy(sql`breakdown_group`)
    .orderBy(sql`${tokens} DESC`, sql`count(*) DESC`)
    .limit(MAX_GROUPS);
  return {
    by: input.by,
    groups: rows.map((row) => ({
      group: row.group,
      label: labelOf(input.by, row.group, row.keyName),
      requests: row.requests,
      delivered: row.delivered,
      input_tokens: Number(row.input),
      output_tokens: Number(row.output),
      cost: row.cost === null ? null : Number(row.cost),
    })),
  };
}

function labelOf(by: Input["by"], group: string | null, keyName: string | null): string {
  if (by === "model") return group ?? "no reply (refused or failed)";
  if (group?.startsWith("key:")) return keyName ? `key '${keyName}'` : `key ${group.slice(4)}`;
  return KINDS[group ?? ""] ?? group ?? "unknown";
}
