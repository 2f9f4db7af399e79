import { ConfigError } from "@/server/config";
import { Scheduler } from "@/server/scheduler/scheduler";
import { getServices, type Services } from "@/server/services";
import { installGracefulShutdown } from "@/server/shutdown";

/** Starts the web server's side of the service (called from instrumentation.ts). */
export async function startUp(): Promise<void> {
  try {
    const services = await getServices();
    reportStart(services);
    const scheduler = services.config.scheduler.enabled ? startScheduler(services) : undefined;
    installGracefulShutdown(services, scheduler);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Agent Service cannot start. ${error.message}`);
      process.exit(1);
    }
    // The database may come up later: requests retry the start and /health reports it meanwhile.
    console.error("Agent Service: start-up failed; will retry on the next request:", error);
  }
}

export function startScheduler(services: Services): Scheduler {
  const { database, clock, chat, config } = services;
  const scheduler = new Scheduler({ db: database.db, clock, chat }, config.scheduler);
  scheduler.start();
  console.info(
    `Agent Service: scheduler on (tick ${config.scheduler.tickMs} ms, up to ${config.scheduler.concurrency} runs at once).`,
  );
  return scheduler;
}

export function reportStart({ adminKey, database, config }: Services): void {
  const where =
    database.kind === "pglite"
      ? `embedded PGlite in ${config.dataDir}/pglite`
      : "PostgreSQL (DATABASE_URL)";
  console.info(`Agent Service: database ready (${where}).`);
  if (adminKey.generated) {
    console.info(
      `Agent Service: generated an admin API key and stored it in ${adminKey.file} (mode 600).`,
    );
    // Shown once, and only on an interactive terminal: never into a log shipped elsewhere.
    if (process.stdout.isTTY) console.info(`Agent Service: admin API key: ${adminKey.key}`);
  } else if (adminKey.source === "file") {
    console.info(`Agent Service: admin API key is in ${adminKey.file}.`);
  }
}
