import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { createDatabase, type Database } from "@/db/client";
import { requestLogOf } from "@/server/requests";
import { pgliteTemplateDump } from "./pglite-template";
import { createThrowawayDatabase } from "./throwaway-postgres";

/**
 * Test databases: PGlite in memory always; a fresh PostgreSQL database per test file when
 * TEST_DATABASE_URL names a server (`.ci/run` sets it). Nothing is mocked.
 */

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;

export type DatabaseKind = "pglite" | "postgres";

export const DATABASE_KINDS: DatabaseKind[] = TEST_DATABASE_URL
  ? ["pglite", "postgres"]
  : ["pglite"];

if (!TEST_DATABASE_URL) {
  console.warn(
    "TEST_DATABASE_URL is not set: tests that need PostgreSQL are skipped (PGlite only).",
  );
}

export type TestDatabase = Database & {
  /** The connection string of the throwaway PostgreSQL database (postgres only). */
  url?: string;
  /** Removes every row, for a clean slate between tests. */
  truncate(): Promise<void>;
  /** Closes and, for PostgreSQL, drops the throwaway database. */
  destroy(): Promise<void>;
};

/** A new empty PostgreSQL database on the TEST_DATABASE_URL server; returns its URL. */
export async function createThrowawayPostgres(): Promise<{ url: string; drop(): Promise<void> }> {
  if (!TEST_DATABASE_URL) throw new Error("TEST_DATABASE_URL is not set");
  return createThrowawayDatabase(TEST_DATABASE_URL, "agent_test");
}

export async function createTestDatabase(
  kind: DatabaseKind,
  options: { maxConnections?: number } = {},
): Promise<TestDatabase> {
  const throwaway = kind === "postgres" ? await createThrowawayPostgres() : undefined;
  const database = throwaway
    ? createDatabase({
        kind: "postgres",
        url: throwaway.url,
        maxConnections: options.maxConnections ?? 20,
      })
    : createDatabase({ kind: "pglite", loadDataDir: await pgliteTemplateDump() });
  await database.migrate();
  return {
    ...database,
    url: throwaway?.url,
    truncate: async () => {
      // The request log's rows of the test before are written first, so none lands after.
      await requestLogOf(database.db).flush();
      await database.db.execute(
        sql`TRUNCATE agents, agent_quotas, deployments, siwe_nonces, model_prices, webhook_endpoints, request_log CASCADE`,
      );
    },
    destroy: async () => {
      await requestLogOf(database.db).close();
      await database.close();
      await throwaway?.drop();
    },
  };
}

/**
 * A database for one describe block: made before its tests, emptied before each (with the
 * clock, if given, set back to `start`), dropped after. Returns a getter for it.
 */
export function useTestDatabase(
  kind: DatabaseKind,
  options: { clock?: { set(to: string): void }; start?: string; maxConnections?: number } = {},
): () => TestDatabase {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(kind, { maxConnections: options.maxConnections });
  });
  afterAll(() => database?.destroy());
  beforeEach(async () => {
    if (options.clock && options.start) options.clock.set(options.start);
    await database?.truncate();
  });
  return () => {
    if (!database) throw new Error("the test database is not ready yet");
    return database;
  };
}
