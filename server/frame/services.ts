import { sql } from "drizzle-orm";
import { APPLICATION_NAME, createDatabase, type Database } from "@/db/client";
import { embeddedDatabaseFailure } from "@/db/failures";
import { rowsOf } from "@/db/rows";
import { type AdminKey, type AuthKeys, authKeys, resolveAdminKey } from "@/server/auth";
import { type Config, ConfigError, parseConfig } from "@/server/frame/config";
import { releaseEveryClaim } from "@/server/idempotency";
import { markStart } from "@/server/instance";
import { type Clock, systemClock } from "@/server/kit/clock";
import { createModelRuntime, type ModelRuntime } from "@/server/model-call";
import { log, metrics } from "@/server/observability";
import { applyConfiguredPrices } from "@/server/prices";
import { sweepReservations } from "@/server/quota";
import { failEveryResponseInProgress } from "@/server/responses";

export type Services = {
  config: Config;
  database: Database;
  adminKey: AdminKey;
  auth: AuthKeys;
  clock: Clock;
  model: ModelRuntime;
};

const globalForServices = globalThis as unknown as { agentServices?: Promise<Services> };

/** How long a failure to open the embedded database is answered before it is tried again. */
export const EMBEDDED_RETRY_MS = 5000;

/**
 * The process's services, started on first use. A failed start is not kept, so that a database
 * that comes up later is picked up without a restart: tried again by the next request on
 * PostgreSQL, but only after EMBEDDED_RETRY_MS on the embedded database, where a try boots PGlite,
 * which is costly even to fail.
 */
export function getServices(): Promise<Services> {
  const running = globalForServices.agentServices;
  if (running) return running;
  // The server entry answers /health at once while this is "starting" (server/instance).
  markStart("starting");
  const starting: Promise<Services> = startServices(process.env).then(
    (services) => {
      markStart("started");
      return services;
    },
    (error: unknown) => {
      markStart("failed");
      const forget = () => {
        if (globalForServices.agentServices === starting)
          globalForServices.agentServices = undefined;
      };
      if (embeddedDatabaseFailure(error)) setTimeout(forget, EMBEDDED_RETRY_MS).unref();
      else forget();
      throw error;
    },
  );
  globalForServices.agentServices = starting;
  return starting;
}

let cachedConfig: Config | undefined;

/** The configuration alone, for what must answer even when the database is down. */
export function getConfig(): Config {
  cachedConfig ??= parseConfig(process.env);
  return cachedConfig;
}

export async function startServices(env: Record<string, string | undefined>): Promise<Services> {
  const config = env === process.env ? getConfig() : parseConfig(env);
  const adminKey = await resolveAdminKey(config);
  const database = createDatabase(
    config.databaseUrl
      ? {
          kind: "postgres",
          url: config.databaseUrl,
          maxConnections: config.databasePoolSize,
          poolMode: config.databasePoolMode,
        }
      : { kind: "pglite", dataDir: `${config.dataDir}/pglite` },
  );
  try {
    // Prepared statements through a transaction pooler run by name on the wrong connection, and
    // the migrations' lock would wait forever: refused before either.
    if (config.databasePoolMode === "session" && (await database.sharesServerConnections()))
      throw new ConfigError(
        "Invalid configuration:\n  DATABASE_POOL_MODE: DATABASE_URL leads to a pooler in transaction mode (one session was served by two PostgreSQL processes in turn, as PgBouncer's pool_mode = transaction does); set DATABASE_POOL_MODE=transaction.",
      );
    await database.migrate();
    // The embedded database has one process (its directory is locked): a chat reservation
    // found now was left by one that died, before any chat of this one began.
    if (database.kind === "pglite") {
      const given = await sweepReservations(database.db);
      if (given > 0)
        log.info(
          { uses: given },
          `Agent Service: gave back ${given} message uses of chats cut off by a stop.`,
        );
      const failed = await failEveryResponseInProgress(database.db, systemClock.now());
      if (failed > 0)
        log.info(
          { responses: failed },
          `Agent Service: failed ${failed} background responses cut off by a stop.`,
        );
      const freed = await releaseEveryClaim(database.db);
      if (freed > 0)
        log.info(
          { keys: freed },
          `Agent Service: freed ${freed} Idempotency-Keys of requests cut off by a stop.`,
        );
    }
    await applyConfiguredPrices({ db: database.db, clock: systemClock }, config.modelPrices);
  } catch (error) {
    await database.close().catch(() => {});
    throw error;
  }
  const auth = authKeys(adminKey.key);
  const model = createModelRuntime(config, {
    headerKey: auth.headerKey,
    endpointKey: auth.endpointKey,
  });
  metrics.sources.slotsInUse = () => model.slots.busy;
  if (database.kind === "postgres") {
    const db = database.db;
    metrics.sources.dbConnections = async () => {
      const rows = rowsOf<{ state: string | null; count: number }>(
        await db.execute(sql`SELECT state, count(*)::int AS count FROM pg_stat_activity
          WHERE pid <> pg_backend_pid() AND application_name = ${APPLICATION_NAME}
            AND usename = current_user GROUP BY state`),
      );
      return Object.fromEntries(rows.map((row) => [row.state ?? "unknown", row.count]));
    };
  }
  return {
    config,
    database,
    adminKey,
    auth,
    clock: systemClock,
    model,
  };
}
