import { createThrowawayDatabase } from "./throwaway-postgres";

/**
 * Which databases the tests run on, and a throwaway PostgreSQL database: what the HTTP,
 * reliability and browser tests need of databases.ts, without what it loads to make databases in
 * the test's own process (drizzle, PGlite, the service's request log: 4–8 s of import for each
 * such file here).
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

/** A new empty PostgreSQL database on the TEST_DATABASE_URL server; returns its URL. */
export async function createThrowawayPostgres(): Promise<{ url: string; drop(): Promise<void> }> {
  if (!TEST_DATABASE_URL) throw new Error("TEST_DATABASE_URL is not set");
  return createThrowawayDatabase(TEST_DATABASE_URL, "agent_test");
}
