import { mkdirSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import * as schema from "./schema";

/** The drizzle database, whichever driver is behind it. Domain code sees only this. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export type Database = {
  db: Db;
  kind: "pglite" | "postgres";
  /** Applies the committed migrations; safe to call from many processes at once. */
  migrate(): Promise<void>;
  close(): Promise<void>;
};

const migrationsFolder = path.join(process.cwd(), "db", "migrations");

// Any fixed number: instances that start together take turns to migrate.
const MIGRATION_LOCK_KEY = 727_274_001;

export type DatabaseOptions =
  | { kind: "postgres"; url: string; maxConnections?: number }
  | { kind: "pglite"; dataDir?: string };

export function createDatabase(options: DatabaseOptions): Database {
  return options.kind === "postgres" ? createPostgres(options) : createPglite(options.dataDir);
}

function createPostgres({
  url,
  maxConnections = 20,
}: {
  url: string;
  maxConnections?: number;
}): Database {
  const client = postgres(url, {
    max: maxConnections,
    connect_timeout: 5,
    idle_timeout: 60,
    // Reconnect soon after an outage: the default backoff grows to 20 s between attempts, and
    // queries queued meanwhile wait for the next one (seen: 16 s after a 2 s restart).
    backoff: (attempt: number) => Math.min(0.1 * attempt, 1),
    onnotice: () => {},
  });
  const db = drizzlePostgres(client, { schema, casing: "snake_case" });
  return {
    db: db as unknown as Db,
    kind: "postgres",
    async migrate() {
      // A dedicated one-connection client, so the advisory lock and the migration share a session.
      const lockClient = postgres(url, { max: 1, onnotice: () => {} });
      try {
        await lockClient`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
        await migratePostgres(drizzlePostgres(lockClient), { migrationsFolder });
      } finally {
        await lockClient.end({ timeout: 5 });
      }
    },
    close: () => client.end({ timeout: 5 }),
  };
}

/** Embedded PostgreSQL (WASM). `dataDir` undefined = in memory (tests). */
function createPglite(dataDir: string | undefined): Database {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const client = new PGlite(dataDir);
  const db = drizzlePglite(client, { schema, casing: "snake_case" });
  return {
    db: db as unknown as Db,
    kind: "pglite",
    migrate: () => migratePglite(db, { migrationsFolder }),
    close: () => client.close(),
  };
}
