import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { createDatabase, type Database } from "@/db/client";
import { requestLogOf } from "@/server/request-log";
import { createThrowawayPostgres, type DatabaseKind } from "./database-kinds";
import { pgliteTemplateDump } from "./pglite-template";

/**
 * Test databases: PGlite in memory always; a fresh PostgreSQL database per test file when
 * TEST_DATABASE_URL names a server (`.ci/run` sets it). Nothing is mocked.
 */

export {
  createThrowawayPostgres,
  DATABASE_KINDS,
  type DatabaseKind,
  TEST_DATABASE_URL,
} from "./database-kinds";

export type TestDatabase = Database & {
  /** The connection string of the throwaway PostgreSQL database (postgres only). */
  url?: string;
  /** Removes every row, for a clean slate between tests. */
  truncate(): Promise<void>;
  /** Closes and, for PostgreSQL, drops the throwaway database. */
  destroy(): Promise<void>;
};

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
        sql`TRUNCATE agents, agent_quotas, chat_messages, deployments, siwe_nonces, model_prices, webhook_endpoints, request_log, request_log_missing_agent, model_circuits, chat_cancels CASCADE`,
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
