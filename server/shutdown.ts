import type { Scheduler } from "@/server/scheduler/scheduler";
import type { Services } from "@/server/services";

/**
 * Graceful shutdown on SIGTERM or SIGINT: stop claiming autonomous runs, refuse new model calls
 * (503), let the runs and chats in flight finish within SHUTDOWN_GRACE_MS, close the database,
 * exit. Whatever is still running then is cut: its run is swept and refunded by a scheduler later.
 * (`npm start` sets NEXT_MANUAL_SIG_HANDLE so that Next.js leaves these signals to us.)
 */
export function installGracefulShutdown(
  services: Services,
  scheduler: Scheduler | undefined,
): void {
  let started = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (started) return;
    started = true;
    const graceMs = services.config.scheduler.shutdownGraceMs;
    console.info(
      `Agent Service: ${signal} received; finishing work in flight (up to ${graceMs} ms).`,
    );
    services.chat.slots.close();
    const runsDone = scheduler ? await scheduler.stop(graceMs) : true;
    const callsDone = await services.chat.slots.drained(graceMs);
    if (!runsDone || !callsDone) console.warn("Agent Service: work still in flight was cut short.");
    await services.database.close().catch(() => {});
    console.info("Agent Service: stopped.");
    process.exit(0);
  };
  process.once("SIGTERM", shutdown);
  process.once("SIGINT", shutdown);
}
