import { readFileSync } from "node:fs";
import path from "node:path";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { createThrowawayPostgres, TEST_DATABASE_URL } from "../helpers/database-kinds";
import { relyingOn } from "../helpers/library";

/**
 * postgres.js as scripts/patch-postgres.mjs leaves it (run by `npm install`/`npm ci`): the
 * guard against porsager/postgres#1208 and the remembered statement signatures. A changed
 * upstream makes the script skip a change with a warning that is easy to miss; this fails then.
 */
describe("the PostgreSQL driver, patched", () => {
  it("carries both changes in the builds that are loaded (ESM and CommonJS)", () => {
    for (const build of ["src", "cjs/src"]) {
      const source = readFileSync(
        path.resolve("node_modules", "postgres", build, "connection.js"),
        "utf8",
      );
      const patched = relyingOn(
        "postgres",
        "scripts/patch-postgres.mjs",
        `the text the patch replaces in ${build}/connection.js`,
      );
      expect(source, patched).toContain("agent-service guard (porsager/postgres#1208)");
      expect(source, patched).toContain("agent-service memo (statement signatures)");
    }
  });

  it.runIf(TEST_DATABASE_URL)(
    "keeps a prepared statement per text and parameter types, and reuses it",
    async () => {
      const database = await createThrowawayPostgres();
      const sql = postgres(database.url, { max: 1, onnotice: () => {} });
      try {
        // Asked without parameters, so sent unprepared. The driver's own start-up query
        // (the array types) is prepared already.
        const preparedCount = async () =>
          (
            await sql.unsafe<{ count: number }[]>(
              "SELECT count(*)::int AS count FROM pg_prepared_statements",
            )
          )[0]?.count ?? 0;
        const before = await preparedCount();
        const text = "SELECT pg_typeof($1)::text AS type";
        const typeOf = async (value: Date | boolean) =>
          (await sql.unsafe<{ type: string }[]>(text, [value], { prepare: true }))[0]?.type;
        // A Date is sent as timestamptz and a boolean as boolean: one text, two statements. A
        // signature that left out the types would bind the boolean to the first and fail.
        expect(await typeOf(new Date(0))).toBe("timestamp with time zone");
        expect(await typeOf(true)).toBe("boolean");
        expect(await typeOf(new Date(1))).toBe("timestamp with time zone");
        expect(await typeOf(false)).toBe("boolean");
        expect((await preparedCount()) - before).toBe(2);
      } finally {
        await sql.end({ timeout: 5 });
        await database.drop();
      }
    },
  );
});
