import { embeddedDatabaseFailure } from "@/db/failures";
import { ConfigError } from "@/server/frame/config";
import { startHousekeeping } from "@/server/frame/housekeeping";
import { getServices, type Services } from "@/server/frame/services";
import { installGracefulShutdown } from "@/server/frame/shutdown";
import { log, runsInstanceWork } from "@/server/observability";
import { Scheduler } from "@/server/runs";
import { WebhookSender } from "@/server/webhooks";

/** Starts a web process's side of the service (called from instrumentation.ts). */
export async function startUp(): Promise<void> {
  try {
    const services = await getServices();
    reportStart(services);
    // Once per instance, not once per web worker: the only process, or the worker in slot 1
    // (server/instance/primary.ts).
    const instanceWork = runsInstanceWork();
    const background = instanceWork ? startBackgroundWork(services) : undefined;
    const scheduler =
      instanceWork && services.config.scheduler.enabled ? startScheduler(services) : undefined;
    installGracefulShutdown(services, { scheduler, sender: background?.sender });
  } catch (error) {
    // A wrong setting, or the embedded database in use by another process: waiting will not help.
    if (error instanceof ConfigError || embeddedDatabaseFailure(error) === "locked") {
      log.fatal(`Agent Service cannot start. ${(error as Error).message}`);
      log.flush(() => process.exit(1));
      return;
    }
    // The database may come up later: requests retry the start and /health reports it meanwhile.
    log.error({ err: error }, "Agent Service: start-up failed; will retry on the next request");
  }
}

/** Background work of every instance, the worker's too: housekeeping and the webhook sender. */
export function startBackgroundWork({ database, clock, config, auth }: Services): {
  sender: WebhookSender;
} {
  startHousekeeping(
    { db: database.db, clock },
    {
      llmTimeoutMs: config.llm.timeoutMs,
      requestLogDays: config.requestLogDays,
      auditRetentionDays: config.auditRetentionDays,
    },
  );
  const sender = new WebhookSender(
    { db: database.db, clock },
    { config: config.webhooks, secretKey: auth.webhookKey },
  );
  sender.start();
  return { sender };
}

export function startScheduler(services: Services): Scheduler {
  const { database, clock, model, config } = services;
  const scheduler = new Scheduler({ db: database.db, clock, model }, config.scheduler);
  scheduler.start();
  log.info(
    { tick_ms: config.scheduler.tickMs, concurrency: config.scheduler.concurrency },
    `Agent Service: scheduler on (tick ${config.scheduler.tickMs} ms, up to ${config.scheduler.concurrency} runs at once).`,
  );
  return scheduler;
}

export function reportStart({ adminKey, database, config }: Services): void {
  const where =
    database.kind === "pglite"
      ? `embedded PGlite in ${config.dataDir}/pglite`
      : "PostgreSQL (DATABASE_URL)";
  log.info({ database: database.kind }, `Agent Service: database ready (${where}).`);
  if (adminKey.generated) {
    log.info(
      `Agent Service: generated an admin API key and stored it in ${adminKey.file} (mode 600).`,
    );
    // Shown once, and only on an interactive terminal: never into a log shipped elsewhere (so
    // not through the logger).
    if (process.stdout.isTTY) console.info(`Agent Service: admin API key: ${adminKey.key}`);
  } else if (adminKey.source === "file") {
    log.info(`Agent Service: admin API key is in ${adminKey.file}.`);
  }
}
