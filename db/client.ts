import { mkdirSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { inTransaction } from "./drizzle-internals";
import { type DataDirLock, lockDataDir } from "./pglite-lock";
import * as schema from "./schema";

/** The drizzle database, whichever driver is behind it. Domain code sees only this. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export type Database = {
  db: Db;
  kind: "pglite" | "postgres";
  /** Applies the committed migrations; safe to call from many processes at once. */
  migrate(): Promise<void>;
  /**
   * Whether one connection's statements were served by more than one PostgreSQL process, which
   * only a pooler in transaction mode does (PostgreSQL gives each session its own for its life).
   */
  sharesServerConnections(): Promise<boolean>;
  close(): Promise<void>;
};

const migrationsFolder = path.join(process.cwd(), "db", "migrations");

/** This process's name in pg_stat_activity, by which the metrics count its connections. */
export const APPLICATION_NAME = `agent-service-${process.pid}`;

// Any fixed number: instances that start together take turns to migrate.
const MIGRATION_LOCK_KEY = 727_274_001;

/**
 * How a pooler between the service and PostgreSQL hands out server connections: `session` (or no
 * pooler) keeps one per connection; `transaction` (PgBouncer's transaction pooling) may change it
 * after every transaction, so nothing may outlive one: no prepared statement, no session lock.
 */
export type PoolMode = "session" | "transaction";

export type DatabaseOptions =
  | { kind: "postgres"; url: string; maxConnections?: number; poolMode?: PoolMode }
  | {
      kind: "pglite";
      dataDir?: string;
      /** A dumped data directory to start an in-memory database from (the tests' template). */
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
  poolMode = "session",
}: {
  url: string;
  maxConnections?: number;
  poolMode?: PoolMode;
}): Database {
  const keepsStatements = poolMode === "session";
  const client = postgres(url, {
    max: maxConnections,
    // A statement prepared on one server connection would be run by name on another, where that
    // name may stand for another statement.
    prepare: keepsStatements,
    connect_timeout: 5,
    idle_timeout: 60,
    // Reconnect soon after an outage: the default backoff grows long between attempts, and queries
    // queued meanwhile wait for the next one.
    backoff: (attempt: number) => Math.min(0.1 * attempt, 1),
    onnotice: () => {},
    connection: { application_name: APPLICATION_NAME },
  });
  const db = drizzlePostgres(keepsStatements ? preparingEveryQuery(client) : client, {
    schema,
    casing: "snake_case",
  });
  return {
    db: db as unknown as Db,
    kind: "postgres",
    async migrate() {
      // One transaction holds the lock and every migration: a lock of the session would stay
      // with a pooler's server connection after this client had left it.
      const migrator = postgres(url, { max: 1, prepare: keepsStatements, onnotice: () => {} });
      try {
        await migrator.begin(async (tx) => {
          await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`;
          await migratePostgres(drizzlePostgres(inTransaction(tx, migrator)), { migrationsFolder });
        });
      } finally {
        await migrator.end({ timeout: 5 });
      }
    },
    async sharesServerConnections() {
      const probe = postgres(url, { max: 2, prepare: false, onnotice: () => {} });
      try {
        const asker = await probe.reserve();
        try {
          for (let round = 0; round < PROBE_ROUNDS; round += 1)
            if (await sessionMoved(probe, asker)) return true;
          return false;
        } finally {
          asker.release();
        }
      } finally {
        await probe.end({ timeout: 5 });
      }
    },
    close: () => client.end({ timeout: 5 }),
  };
}

// A busy pooler may hand the asker its old server connection again by chance: each round is
// another chance to see it move, and rounds are cheap where no pooler is.
const PROBE_ROUNDS = 20;

const backendPid = async (sql: postgres.Sql | postgres.ReservedSql | postgres.TransactionSql) =>
  ((await sql`SELECT pg_backend_pid() AS pid`)[0] as { pid: number }).pid;

/**
 * Whether `asker`'s session was served by another PostgreSQL process while a second connection held
 * a transaction open. PostgreSQL keeps a session on one process for its life, so neither can happen
 * without a pooler: the holder cannot be given the asker's idle process, and the asker cannot move.
 */
async function sessionMoved(probe: postgres.Sql, asker: postgres.ReservedSql): Promise<boolean> {
  const before = await backendPid(asker);
  let after: Promise<number> | undefined;
  const seen = await probe.begin(async (holder) => {
    if ((await backendPid(holder)) === before) return true;
    after = backendPid(asker);
    // With one server connection the asker waits for the holder's: the holder ends first then.
    const answered = await within(after, 2_000);
    return answered !== undefined && answered !== before;
  });
  return seen || (after !== undefined && (await after) !== before);
}

/** The promise's value, or undefined if it has not settled within `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, ms, undefined);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The postgres.js client with every query that has parameters prepared per connection: otherwise
 * each costs two round trips, and drizzle prepares only queries named with `.prepare()`.
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

/** Embedded PostgreSQL, in memory without `dataDir`; a data directory is locked till `close()`. */
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
  const db = drizzlePglite(takingTurnsWithIo(client), { schema, casing: "snake_case" });
  return {
    db: db as unknown as Db,
    kind: "pglite",
    sharesServerConnections: async () => false,
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

/**
 * PGlite runs each query on the main thread, and its queue hands over to the next query in a
 * microtask: a burst of queries would hold back every socket's data (a model's stream, a new
 * request) until the queue is empty. Here queries take turns with the event loop: each starts
 * only after the one before it has ended and the ready I/O has run.
 */
export function takingTurnsWithIo(client: PGlite): PGlite {
  const waiting = new Set<PropertyKey>(["query", "exec", "transaction"]);
  let last: Promise<unknown> = Promise.resolve();
  return new Proxy(client, {
    // Read and called on PGlite itself: its private fields are not the proxy's.
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (!waiting.has(property)) return value.bind(target);
      return (...args: unknown[]) => {
        // Scheduled once the previous query has ended: an immediate set while immediates run
        // waits for the next turn of the loop, after its I/O.
        const run = last
          .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
          .then(() => value.apply(target, args));
        last = run.catch(() => {});
        return run;
      };
    },
  });
}
