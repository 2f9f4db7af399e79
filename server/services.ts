import { createDatabase, type Database } from "@/db/client";
import { type AdminKey, type AuthKeys, authKeys, resolveAdminKey } from "@/server/auth/admin-key";
import { type ChatRuntime, createChatRuntime } from "@/server/chat/runtime";
import { type Clock, systemClock } from "@/server/clock";
import { type Config, parseConfig } from "@/server/config";

/** What every request needs, made once per process. */
export type Services = {
  config: Config;
  database: Database;
  adminKey: AdminKey;
  /** The session-signing key and the admin-key check, derived once from the admin key. */
  auth: AuthKeys;
  clock: Clock;
  chat: ChatRuntime;
};

const globalForServices = globalThis as unknown as { agentServices?: Promise<Services> };

/**
 * The process's services, started on first use: configuration checked, admin key resolved,
 * database opened and migrated. A failed start is not cached, so the next request tries again
 * (a database that comes up later is picked up without a restart).
 */
export function getServices(): Promise<Services> {
  globalForServices.agentServices ??= startServices(process.env).catch((error: unknown) => {
    globalForServices.agentServices = undefined;
    throw error;
  });
  return globalForServices.agentServices;
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
      ? { kind: "postgres", url: config.databaseUrl }
      : { kind: "pglite", dataDir: `${config.dataDir}/pglite` },
  );
  try {
    await database.migrate();
  } catch (error) {
    await database.close().catch(() => {});
    throw error;
  }
  return {
    config,
    database,
    adminKey,
    auth: authKeys(adminKey.key),
    clock: systemClock,
    chat: createChatRuntime(config),
  };
}
