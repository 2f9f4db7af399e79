import {
  type AnyColumn,
  and,
  asc,
  count,
  desc,
  eq,
  gt,
  ilike,
  lt,
  or,
  type SQL,
  sql,
} from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db/client";
import { prepared } from "@/db/prepared";
import { agentQuotaFields, agentQuotaView, agents } from "@/db/schema";
import type { DataContext } from "@/server/frame/data-context";
import { AppError } from "@/server/frame/errors";
import { withoutNul } from "@/server/kit/text";
import { decodeCursor, encodeCursor, twoWayPage } from "@/server/pagination";
import { quotaFilterSql, quotaUseSql, utcDay, utcMonth } from "@/server/quota";
import { presentAgent } from "./agents";
import type { ListAgentsQuery, listAgentsOutputSchema } from "./schema";
import type { AgentSort } from "./view";

/**
 * Listing agents with keyset pagination: a cursor holds the sort key and aid of the row it
 * follows, so a page starts where the last ended whatever changed meanwhile. Quota use and last
 * activity are not indexed (an index on `agent_quotas` would cost every chat's counter update its
 * HOT update, db/schema.ts), so those orders and the quota filter read every agent.
 */

type Direction = "asc" | "desc";
type ListOutput = z.output<typeof listAgentsOutputSchema>;
type Ctx = DataContext;

// After (or, with `d: "b"`, before) the row with sort key `v` and aid `a`, in sort `s` and
// order `o`. Older cursors are `{ a }` alone: aid order.
const cursorSchema = z.object({
  // No NUL: PostgreSQL cannot take it as text, and a cursor of ours never holds one.
  a: z.string().refine(withoutNul),
  s: z.enum(["aid", "name", "quota", "activity"]).default("aid"),
  o: z.enum(["asc", "desc"]).default("asc"),
  v: z.string().refine(withoutNul).optional(),
  d: z.literal("b").optional(),
});
type Cursor = z.output<typeof cursorSchema>;

const DEFAULT_ORDER: Record<AgentSort, Direction> = {
  aid: "asc",
  name: "asc",
  quota: "desc",
  activity: "desc",
};

/** The sort key of each order, as SQL; `text` so that any key goes in a cursor unchanged. */
function sortKey(sort: AgentSort, day: string, month: string): SQL {
  switch (sort) {
    case "aid":
      return sql`${agents.aid}`;
    case "name":
      // The expression of the agents_by_name index, so that order reads it.
      return sql`lower(${agents.name})`;
    case "quota":
      return sql`${quotaUseSql(day, month)}`;
    case "activity":
      // Microseconds since 1970, -1 for never: an integer, so any cursor value is checked by a
      // pattern and none can make PostgreSQL fail to read it.
      return sql`COALESCE((EXTRACT(EPOCH FROM GREATEST(${agentQuotaView.lastMessageAt}, ${agentQuotaView.lastAutonomousAt})) * 1000000)::bigint, -1)`;
  }
}

function keyValue(sort: AgentSort, value: string): SQL {
  if (sort === "quota") return sql`${value}::int`;
  if (sort === "activity") return sql`${value}::bigint`;
  return sql`${value}`;
}

const KEY_PATTERNS: Partial<Record<AgentSort, RegExp>> = {
  quota: /^\d{1,5}$/,
  activity: /^-?\d{1,17}$/,
};

export async function listAgents({ db, clock }: Ctx, input: ListAgentsQuery): Promise<ListOutput> {
  const sort = input.sort ?? "aid";
  const order = input.order ?? DEFAULT_ORDER[sort];
  const cursor = input.cursor === undefined ? undefined : readCursor(input.cursor, sort, order);
  const pattern = input.q ? `%${escapeLike(input.q)}%` : undefined;
  const now = clock.now();
  const day = utcDay(now);
  const month = utcMonth(now);

  const commonPath =
    sort === "aid" &&
    order === "asc" &&
    cursor?.d === undefined &&
    input.quota === undefined &&
    input.autonomous === undefined;
  const fetched = commonPath
    ? (
        await agentsPageQuery(db, cursor !== undefined, pattern !== undefined).execute({
          after: cursor?.a,
          pattern,
          limit: input.limit + 1,
        })
      ).map((row) => ({ ...row, key: row.agent.aid }))
    : await pageQuery(db, { sort, order, cursor, pattern, day, month, input });

  const backwards = cursor?.d === "b";
  const { page, ...cursors } = twoWayPage(
    fetched,
    input.limit,
    { backwards, fromCursor: cursor !== undefined },
    (row, before) =>
      encodeCursor({
        a: row.agent.aid,
        s: sort,
        o: order,
        ...(sort === "aid" ? {} : { v: row.key }),
        ...(before ? { d: "b" } : {}),
      }),
  );
  return {
    agents: page.map((row) => presentAgent(row.agent, row.quota, now)),
    ...cursors,
    ...(input.include_total ? { total: await countAgents(db, input, pattern, day, month) } : {}),
  };
}

function readCursor(text: string, sort: AgentSort, order: Direction): Cursor {
  const cursor = decodeCursor(text, cursorSchema);
  const pattern = KEY_PATTERNS[sort];
  if (cursor.v !== undefined && pattern && !pattern.test(cursor.v)) {
    throw new AppError(
      "invalid_cursor",
      "The cursor is not one this service gave out; start again without it.",
      {
        errors: [{ field: "cursor", detail: "is not a cursor this service gave out" }],
      },
    );
  }
  if (cursor.s !== sort || cursor.o !== order || (sort !== "aid") !== (cursor.v !== undefined)) {
    throw new AppError(
      "invalid_cursor",
      "The cursor belongs to another sort order; start again without it.",
      { errors: [{ field: "cursor", detail: "belongs to another sort order" }] },
    );
  }
  return cursor;
}

function agentFilters(input: ListAgentsQuery, pattern: string | undefined): SQL[] {
  const found: SQL[] = [];
  if (pattern !== undefined) {
    found.push(or(ilike(agents.aid, pattern), ilike(agents.name, pattern)) as SQL);
  }
  if (input.autonomous !== undefined) {
    found.push(eq(agents.autonomousEnabled, input.autonomous === "on"));
  }
  return found;
}

type PageShape = {
  sort: AgentSort;
  order: Direction;
  cursor: Cursor | undefined;
  pattern: string | undefined;
  day: string;
  month: string;
  input: ListAgentsQuery;
};

function pageQuery(db: Db, shape: PageShape) {
  const { sort, order, cursor, pattern, day, month, input } = shape;
  const key = sortKey(sort, day, month);
  // Quota use and activity break ties by aid ascending whichever way they run; name and aid
  // follow the order, so that name order reads its index in either direction.
  const aidOrder: Direction = sort === "quota" || sort === "activity" ? "asc" : order;
  const backwards = cursor?.d === "b";
  const flip = (d: Direction): Direction => (backwards ? (d === "asc" ? "desc" : "asc") : d);
  const keyDirection = flip(order);
  const aidDirection = flip(aidOrder);
  const by = (expression: SQL | AnyColumn, d: Direction) =>
    d === "asc" ? asc(expression) : desc(expression);
  const quotaCondition =
    input.quota === undefined ? undefined : quotaFilterSql(input.quota, day, month);

  if (sort === "aid" || sort === "name") {
    let position: SQL | undefined;
    if (cursor && sort === "aid") {
      // The bound on the quota side too, as in agentsPageQuery: it keeps the merge join short.
      position =
        keyDirection === "asc"
          ? and(gt(agents.aid, cursor.a), gt(agentQuotaView.aid, cursor.a))
          : and(lt(agents.aid, cursor.a), lt(agentQuotaView.aid, cursor.a));
    } else if (cursor) {
      // One row comparison, which the agents_by_name index seeks to.
      position = sql`(${key}, ${agents.aid}) ${keyDirection === "asc" ? sql`>` : sql`<`} (${cursor.v}, ${cursor.a})`;
    }
    return db
      .select({ agent: agents, quota: agentQuotaFields, key: sql<string>`(${key})::text` })
      .from(agents)
      .innerJoin(agentQuotaView, eq(agentQuotaView.aid, agents.aid))
      .where(and(position, quotaCondition, ...agentFilters(input, pattern)))
      .orderBy(...(sort === "aid" ? [] : [by(key, keyDirection)]), by(agents.aid, aidDirection))
      .limit(input.limit + 1);
  }

  // Quota use and activity: the page is chosen from the narrow quota rows first (joined to the
  // agents only when a filter needs them), so the sort moves small rows; then its rows are read.
  const aid = agentQuotaView.aid;
  const beyond = (d: Direction) => (d === "asc" ? sql`>` : sql`<`);
  const value = cursor ? keyValue(sort, cursor.v as string) : undefined;
  const position =
    cursor && value
      ? sql`(${key} ${beyond(keyDirection)} ${value} OR (${key} = ${value} AND ${aid} ${beyond(aidDirection)} ${cursor.a}))`
      : undefined;
  const needsAgents = pattern !== undefined || input.autonomous !== undefined;
  const candidates = db
    .select({ aid: sql<string>`${aid}`.as("page_aid"), key: sql`${key}`.as("page_key") })
    .from(agentQuotaView);
  const page = (
    needsAgents ? candidates.innerJoin(agents, eq(agents.aid, agentQuotaView.aid)) : candidates
  )
    .where(and(position, quotaCondition, ...agentFilters(input, pattern)))
    // By the output column's name, so the key is not computed once more for the sort.
    .orderBy(by(sql.raw(`"page_key"`), keyDirection), by(aid, aidDirection))
    .limit(input.limit + 1)
    .as("page");
  return db
    .select({
      agent: agents,
      quota: agentQuotaFields,
      // Named apart from page_key: ORDER BY page_key below must mean the number, not this text.
      key: sql<string>`(${page.key})::text`.as("cursor_key"),
    })
    .from(page)
    .innerJoin(agents, eq(agents.aid, page.aid))
    .innerJoin(agentQuotaView, eq(agentQuotaView.aid, page.aid))
    .orderBy(by(sql`${page.key}`, keyDirection), by(sql`${page.aid}`, aidDirection));
}

async function countAgents(
  db: Db,
  input: ListAgentsQuery,
  pattern: string | undefined,
  day: string,
  month: string,
): Promise<number> {
  const onAgents = agentFilters(input, pattern);
  // Each side is read only when a condition needs it: all agents is a count of `agents`; the
  // quota filter alone, a count of `agent_quota_view` (one row per agent).
  const [row] =
    input.quota === undefined
      ? await db
          .select({ n: count() })
          .from(agents)
          .where(and(...onAgents))
      : onAgents.length === 0
        ? await db
            .select({ n: count() })
            .from(agentQuotaView)
            .where(quotaFilterSql(input.quota, day, month))
        : await db
            .select({ n: count() })
            .from(agents)
            .innerJoin(agentQuotaView, eq(agentQuotaView.aid, agents.aid))
            .where(and(quotaFilterSql(input.quota, day, month), ...onAgents));
  return row?.n ?? 0;
}

// Prepared once per database handle for each of its four shapes: it runs on every listing.
function agentsPageQuery(db: Db, hasCursor: boolean, hasPattern: boolean) {
  const shape = `${hasCursor ? "after" : "first"}_${hasPattern ? "search" : "all"}`;
  return prepared(db, `agents-page-${shape}`, () => {
    const after = sql.placeholder("after");
    const pattern = sql.placeholder("pattern");
    return db
      .select({ agent: agents, quota: agentQuotaFields })
      .from(agents)
      .innerJoin(agentQuotaView, eq(agentQuotaView.aid, agents.aid))
      .where(
        and(
          hasCursor ? gt(agents.aid, after) : undefined,
          // The same bound on the quota side: PostgreSQL does not carry it across the merge join,
          // and without it the quota index is read from the start.
          hasCursor ? gt(agentQuotaView.aid, after) : undefined,
          hasPattern ? or(ilike(agents.aid, pattern), ilike(agents.name, pattern)) : undefined,
        ),
      )
      .orderBy(asc(agents.aid))
      .limit(sql.placeholder("limit"))
      .prepare(`agents_page_${shape}`);
  });
}

/** Escapes LIKE wildcards so a search for `50%` finds the text `50%`. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
