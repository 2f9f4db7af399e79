import path from "node:path";
import * as drizzleOrm from "drizzle-orm";
import { eq, type SQL, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { inTransaction, mapRowsByPlan, rowFromJson, rowMapper } from "@/db/drizzle-internals";
import { rowsOf } from "@/db/rows";
import { agentQuotas, agents, agentTokenUsage } from "@/db/schema";
import { openingQuery, openingValues } from "@/server/chat";
import { fixedClock } from "@/server/kit/clock";
import { settleMessage } from "@/server/quota";
import { storeQuery } from "@/server/threads";
import { callerFor } from "../helpers/context";
import { createThrowawayPostgres, TEST_DATABASE_URL } from "../helpers/database-kinds";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";
import { relyingOn } from "../helpers/library";

/**
 * Rows mapped by a plan (db/drizzle-internals.ts) are the rows drizzle's own `mapResultRow` makes:
 * for the chat's two statements (CTEs, nested objects, SQL fields with decoders), for a left
 * join whose joined table is missing (the object becomes null), and for every field of each
 * made null in turn, on the rows each database's driver returns. And drizzle's migrator, given a
 * transaction's client (db/client.ts), migrates in that transaction.
 */

type OrderedField = { path: string[]; field: unknown };
type MapResultRow = (
  fields: OrderedField[],
  row: unknown[],
  joins: Record<string, boolean> | undefined,
) => Record<string, unknown>;
type Prepared = {
  fields: OrderedField[];
  joinsNotNullableMap?: Record<string, boolean>;
  customResultMapper?: (rows: unknown[][]) => unknown;
  execute(values?: Record<string, unknown>): Promise<unknown[]>;
};

// Internal to drizzle (left out of its types), which is why the plan exists; the reference here.
const { mapResultRow } = drizzleOrm as unknown as { mapResultRow: MapResultRow };

/** The driver's raw rows of a prepared query (arrays, before any mapping). */
async function rawRows(query: Prepared, values: Record<string, unknown> = {}) {
  const raw = Object.create(query) as Prepared;
  raw.customResultMapper = (rows) => rows;
  return (await raw.execute(values)) as unknown as unknown[][];
}

/** The rows, and each with one field made null, and one with every field null. */
function variants(rows: unknown[][]): unknown[][] {
  const width = rows[0]?.length ?? 0;
  return [
    ...rows,
    ...rows.flatMap((row) => row.map((_, index) => row.map((v, i) => (i === index ? null : v)))),
    Array.from({ length: width }, () => null),
  ];
}

const mapsAsDrizzle = relyingOn(
  "drizzle-orm",
  "db/drizzle-internals.ts",
  "a prepared query's fields, joinsNotNullableMap and customResultMapper, mapped as mapResultRow maps them",
);

function expectSameMapping(query: Prepared, rows: unknown[][]) {
  expect(Array.isArray(query.fields), mapsAsDrizzle).toBe(true);
  const planned = rowMapper(query.fields, query.joinsNotNullableMap);
  for (const row of variants(rows)) {
    expect(planned(row), mapsAsDrizzle).toStrictEqual(
      mapResultRow(query.fields, row, query.joinsNotNullableMap),
    );
  }
}

describe.each(DATABASE_KINDS)("rows mapped by a plan on %s", (kind) => {
  const clock = fixedClock("2026-11-26T16:00:00Z");
  const testDatabase = useTestDatabase(kind, { clock, start: "2026-11-26T16:00:00Z" });

  it("maps the chat's opening and store statements as drizzle does", async () => {
    const { db } = testDatabase();
    await callerFor(db, { clock }).agents.upsert({ aid: "mapped" } as { aid: string });
    const opening = openingQuery(db, "admin", true).prepare(
      "mapped_opening",
    ) as unknown as Prepared;
    const values = openingValues(
      [{ aid: "mapped", caller: { kind: "admin" }, chatId: "t", inputChars: 1 }],
      clock.now(),
      { historyMessages: 20, historyMaxChars: 10_000 },
    );
    const rows = await rawRows(opening, values);
    expect(rows).toHaveLength(1);
    expectSameMapping(opening, rows);

    const store = storeQuery(db, "message", settleMessage(0)).prepare(
      "mapped_store",
    ) as unknown as Prepared;
    // The store's fields, on a row of as many text values (its decoders take what they get).
    expectSameMapping(store, [store.fields.map((_, index) => String(index))]);
  });

  it("makes a left-joined table whose columns are all null a null object, as drizzle does", async () => {
    const { db } = testDatabase();
    await callerFor(db, { clock }).agents.upsert({ aid: "joined" } as { aid: string });
    const query = db
      .select()
      .from(agents)
      .leftJoin(agentTokenUsage, eq(agentTokenUsage.aid, agents.aid))
      .where(eq(agents.aid, "joined"))
      .prepare("mapped_join") as unknown as Prepared;
    const rows = await rawRows(query);
    expectSameMapping(query, rows);

    const [planned] = await mapRowsByPlan(query).execute();
    expect(planned).toMatchObject({ agents: { aid: "joined" }, agent_token_usage: null });
    // The planned mapper is the one used: a second query without it maps the same.
    const [own] = await (
      db
        .select()
        .from(agents)
        .leftJoin(agentTokenUsage, eq(agentTokenUsage.aid, agents.aid))
        .where(eq(agents.aid, "joined"))
        .prepare("mapped_join_own") as unknown as Prepared
    ).execute();
    expect(planned, mapsAsDrizzle).toStrictEqual(own);

    // An object of columns from both tables, the missing table's first: not null.
    const mixed = db
      .select({ mixed: { tokens: agentTokenUsage.aid, aid: agents.aid } })
      .from(agents)
      .leftJoin(agentTokenUsage, eq(agentTokenUsage.aid, agents.aid))
      .where(eq(agents.aid, "joined"))
      .prepare("mapped_mixed") as unknown as Prepared;
    expectSameMapping(mixed, await rawRows(mixed));
    expect(await mapRowsByPlan(mixed).execute()).toStrictEqual([
      { mixed: { tokens: null, aid: "joined" } },
    ]);
  });

  it("maps SQL fields with decoders, aliases and nested objects as drizzle does", async () => {
    const { db } = testDatabase();
    // Objects two deep: drizzle maps them, though its types stop at one.
    const selection = {
      deep: { inner: { value: sql<number>`1`.mapWith(Number) }, beside: sql`2` },
      n: sql`41 + 1`.mapWith(Number),
      at: sql<Date>`now()`.mapWith(agents.createdAt),
      nested: { text: sql<string>`'x'`, none: sql`NULL` },
      aliased: sql<number>`7`.mapWith(Number).as("aliased"),
    } as unknown as Record<string, SQL>;
    const query = db
      .select(selection)
      .from(sql`(SELECT 1) AS one`)
      .prepare("mapped_sql") as unknown as Prepared;
    const rows = await rawRows(query);
    expectSameMapping(query, rows);
    const [planned] = await mapRowsByPlan(query).execute();
    expect(planned).toMatchObject({
      deep: { inner: { value: 1 }, beside: 2 },
      n: 42,
      nested: { text: "x", none: null },
      aliased: 7,
    });
    expect((planned as { at: unknown }).at).toBeInstanceOf(Date);
  });

  it("reads a row from its JSON as drizzle reads the row, for every column type", async () => {
    const { db } = testDatabase();
    await callerFor(db, { clock }).agents.upsert({
      aid: "json-row",
      quota: { message_limit_daily: 7, token_limit_total: 5_000_000_000 },
    } as { aid: string });
    await db
      .update(agentQuotas)
      .set({ lastMessageAt: new Date("2026-11-26T15:59:58.123Z"), messageCountDaily: 3 })
      .where(eq(agentQuotas.aid, "json-row"));
    await db.insert(agentTokenUsage).values({
      aid: "json-row",
      inputTokensTotal: 2 ** 40,
      costTotal: 0.125,
      tokenDay: "2026-11-26",
    });
    for (const table of [agentQuotas, agentTokenUsage]) {
      const [selected] = await db.select().from(table).where(eq(table.aid, "json-row"));
      const json = rowsOf<{ row: unknown }>(
        await db.execute(sql`SELECT to_json(t) AS row FROM ${table} AS t WHERE t.aid = 'json-row'`),
      )[0]?.row;
      expect(
        rowFromJson(table, json),
        relyingOn("drizzle-orm", "db/drizzle-internals.ts", "a column's keyAsName and casing"),
      ).toStrictEqual(selected);
    }
    expect(rowFromJson(agentQuotas, null)).toBeNull();
  });
});

const migratesInCallersTransaction = relyingOn(
  "drizzle-orm",
  "db/drizzle-internals.ts",
  "the migrator running every migration in the transaction its client's `begin` opens",
);

describe.skipIf(!TEST_DATABASE_URL)("migrations in the caller's transaction, on postgres", () => {
  it("writes every migration and its record in the transaction that holds the lock", async () => {
    const database = await createThrowawayPostgres();
    const client = postgres(database.url, { max: 1, onnotice: () => {} });
    try {
      const { own, writers } = await client.begin(async (tx) => {
        const [{ txid }] = (await tx`SELECT txid_current()::text AS txid`) as unknown as [
          { txid: string },
        ];
        await migrate(drizzle(inTransaction(tx, client)), {
          migrationsFolder: path.resolve("db", "migrations"),
        });
        // xmin: the transaction that wrote each row.
        const rows =
          await tx`SELECT DISTINCT xmin::text AS writer FROM drizzle.__drizzle_migrations`;
        return { own: txid, writers: rows.map((row) => row.writer as string) };
      });
      expect(writers, migratesInCallersTransaction).toEqual([own]);
    } finally {
      await client.end({ timeout: 5 });
      await database.drop();
    }
  });
});
