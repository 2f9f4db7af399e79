import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase, type Db } from "@/db/client";
import { checkDatabase } from "@/server/health";
import { callerFor } from "../helpers/context";
import { createThrowawayPostgres, TEST_DATABASE_URL } from "../helpers/database-kinds";
import { pgliteTemplateDump } from "../helpers/pglite-template";

/** While `busy` holds the database, the check times out; once it is done, the check passes. */
async function expectTimeoutWhileBusy(db: Db, busy: Promise<unknown>) {
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(await checkDatabase(db, 200)).toBe("timeout");
  await busy;
  expect(await checkDatabase(db, 200)).toBe("ok");
}

describe("database health check", () => {
  it("says timeout when the embedded database is busy past the bound", async () => {
    const database = createDatabase({ kind: "pglite", loadDataDir: await pgliteTemplateDump() });
    await database.migrate();
    try {
      // PGlite serves one connection: a long transaction makes the check wait.
      await expectTimeoutWhileBusy(
        database.db,
        database.db.transaction(async (tx) => {
          await tx.execute(sql`SELECT 1`);
          await new Promise((resolve) => setTimeout(resolve, 800));
        }),
      );
    } finally {
      await database.close();
    }
  });

  it("says unreachable when the database is closed", async () => {
    const database = createDatabase({ kind: "pglite", loadDataDir: await pgliteTemplateDump() });
    await database.migrate();
    await database.close();
    const health = await callerFor(database.db).health.check();
    expect(health).toMatchObject({ status: "unhealthy", database: "unreachable" });
  });

  describe.skipIf(!TEST_DATABASE_URL)("on PostgreSQL", () => {
    let throwaway: Awaited<ReturnType<typeof createThrowawayPostgres>>;
    beforeAll(async () => {
      throwaway = await createThrowawayPostgres();
    });
    afterAll(() => throwaway?.drop());

    it("says timeout when no connection frees within the bound", async () => {
      const database = createDatabase({ kind: "postgres", url: throwaway.url, maxConnections: 1 });
      try {
        await database.db.execute(sql`SELECT 1`); // connected, so only the sleep is in the way
        // Drizzle queries run when awaited: `.then` starts this one now.
        await expectTimeoutWhileBusy(
          database.db,
          database.db.execute(sql`SELECT pg_sleep(0.8)`).then(() => undefined),
        );
      } finally {
        await database.close();
      }
    });
  });
});
