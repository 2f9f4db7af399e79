import { mkdirSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { type DataDirLock, lockDataDir } from "./pglite-lock";
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

/**
 * This process's name in pg_stat_activity: the metrics count its connections by it (every
 * instance has its own pid, so their pools are told apart).
 */
export const APPLICATION_NAME = `agent-service-${process.pid}`;

// Any fixed number: instances that start together take turns to migrate.
const MIGRATION_LOCK_KEY = 727_274_001;

export type DatabaseOptions =
  | { kind: "postgres"; url: string; maxConnections?: number }
  | {
      kind: "pglite";
      dataDir?: string;
      /**
       * A dump of a data directory (PGlite's `dumpDataDir`) to start an in-memory database
       * from, instead of creating an empty one: tests start each of theirs from one migrated
       * template, in 1.7-2.1 s against 3.7-5.7 s for a new cluster
       * (tests/helpers/pglite-template.ts).
       */
      loadDataDir?: Blob;
    };

export function createDatabase(options: DatabaseOptions): Database {
  return options.kind === "postgres"
    ? createPostgres(options)
    : createPglite(options.dataDir, options.loadDataDir);
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
    connection: { application_name: APPLICATION_NAME },
  });
  const db = drizzlePostgres(preparingEveryQuery(client), { schema, casing: "snake_case" });
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

/**
 * The postgres.js client with every query that has parameters prepared (named, and kept per
 * connection). drizzle asks for that only for queries given a name with `.prepare()`, and
 * postgres.js sends any other query with parameters in two round trips: Parse and Describe,
 * a wait for the parameter types, then Bind and Execute. Measured on this machine's
 * PostgreSQL, one connection: 178–246 µs a query unprepared, 80–105 µs prepared. The statements
 * kept are the service's own SQL texts, a bounded set (`IN` lists vary only up to the
 * scheduler's batch size); a connection's are dropped with it (postgres.js renews connections
 * every 30–60 minutes).
 */
function preparingEveryQuery(sql: postgres.Sql): postgres.Sql {
  type Callback = (inner: postgres.Sql) => unknown;
  // A transaction or savepoint hands its callback a client of its own: that one prepares too.
  const wrapCallback = (args: unknown[]) => {
    const callback = args.at(-1) as Callback;
    return [...args.slice(0, -1), (inner: postgres.Sql) => callback(preparingEveryQuery(inner))];
  };
  return new Proxy(sql, {
    get(target, property, receiver) {
      if (property === "unsafe") {
        return (query: string, params?: unknown[], options?: object) =>
          target.unsafe(query, params as never, { ...options, prepare: true });
      }
      if (property === "begin" || property === "savepoint") {
        const original = Reflect.get(target, property, receiver) as (...args: unknown[]) => unknown;
        return (...args: unknown[]) => original.apply(target, wrapCallback(args));
      }
      return Reflect.get(target, property, receiver);
    },
  });
}

/** The `code` of the error thrown when PGlite fails to open or migrate its data directory. */
export const EMBEDDED_DATABASE_UNAVAILABLE = "EMBEDDED_DATABASE_UNAVAILABLE";

/** PGlite could not open (or migrate) its data: the database is unavailable, not a bug. */
export class EmbeddedDatabaseError extends Error {
  override name = "EmbeddedDatabaseError";
  readonly code = EMBEDDED_DATABASE_UNAVAILABLE;
  constructor(dataDir: string | undefined, step: "opened" | "migrated", cause: unknown) {
    const where = dataDir ? `in ${dataDir}` : "in memory";
    const why = (cause instanceof Error ? cause.message : String(cause)).replace(/\.$/, "");
    super(
      `The embedded database ${where} could not be ${step}: ${why}.` +
        (dataDir && step === "opened"
          ? " If the directory is damaged (for example after two processes used it at once), " +
            "move it away to start with an empty database, or put back a copy."
          : ""),
      { cause },
    );
  }
}

/**
 * Embedded PostgreSQL (WASM). `dataDir` undefined = in memory (tests). A data directory is
 * locked for this process until `close()` (see pglite-lock.ts): a second process refuses it.
 */
function createPglite(dataDir: string | undefined, loadDataDir?: Blob): Database {
  let lock: DataDirLock | undefined;
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    lock = lockDataDir(dataDir);
  }
  let client: PGlite;
  try {
    // Options alone: with a first argument of undefined, PGlite ignores the second.
    client = new PGlite({ dataDir, loadDataDir });
  } catch (error) {
    lock?.release();
    throw new EmbeddedDatabaseError(dataDir, "opened", error);
  }
  const db = drizzlePglite(client, { schema, casing: "snake_case" });
  return {
    db: db as unknown as Db,
    kind: "pglite",
    async migrate() {
      try {
        await client.waitReady;
      } catch (error) {
        throw new EmbeddedDatabaseError(dataDir, "opened", error);
      }
      try {
        await migratePglite(db, { migrationsFolder });
      } catch (error) {
        throw new EmbeddedDatabaseError(dataDir, "migrated", error);
      }
    },
    async close() {
      try {
        await client.close();
      } finally {
        lock?.release();
      }
    },
  };
}
