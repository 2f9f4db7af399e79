import type { Services } from "@/server/frame/services";
import { log, stopTracing } from "@/server/observability";
import { requestLogOf } from "@/server/request-log";
import { backgroundResponsesDrained } from "@/server/responses";
import type { Scheduler } from "@/server/runs";
import type { WebhookSender } from "@/server/webhooks";

/** Whether this process is draining (SIGTERM received): /health/ready answers 503 meanwhile. */
const state = globalThis as unknown as { agentServiceDraining?: boolean };
export const isDraining = (): boolean => state.agentServiceDraining === true;

/**
 * Graceful shutdown on SIGTERM or SIGINT: report not ready, stop claiming, refuse new model calls,
 * let what is in flight finish, then close the MCP connections, the request log and the database.
 * Runs and chats share one SHUTDOWN_GRACE_MS deadline; what is cut then is swept and refunded
 * later. (`npm start` sets NEXT_MANUAL_SIG_HANDLE so that Next.js leaves these signals to us.)
 */
export function installGracefulShutdown(
  services: Services,
  { scheduler, sender }: { scheduler: Scheduler | undefined; sender: WebhookSender | undefined },
): void {
  let started = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (started) return;
    started = true;
    state.agentServiceDraining = true;
    const graceMs = services.config.scheduler.shutdownGraceMs;
    const deadline = Date.now() + graceMs;
    const left = () => Math.max(0, deadline - Date.now());
    log.info(
      { signal, grace_ms: graceMs },
      `Agent Service: ${signal} received; finishing work in flight (up to ${graceMs} ms).`,
    );
    services.model.slots.close();
    // Webhook attempts finish beside the runs; what is not sent stays in the outbox, for this
    // instance's next start or any other instance.
    const [runsDone, sendsDone] = await Promise.all([
      scheduler ? scheduler.stop(left()) : true,
      sender ? sender.stop(left()) : true,
    ]);
    const callsDone = await services.model.slots.drained(left());
    // Their model calls are done or cut: what is left is writing their ends.
    const responsesDone = await backgroundResponsesDrained(left());
    if (!runsDone || !callsDone || !sendsDone || !responsesDone)
      log.warn("Agent Service: work still in flight was cut short.");
    // After the calls: a chat or run still in flight may be using a connection. The request
    // log's last rows (the chats just finished) are written before the database closes.
    await services.model.tools.close().catch(() => {});
    await services.model.endpoints.connections.close();
    await requestLogOf(services.database.db).close();
    await services.database.close().catch(() => {});
    // The spans of the last requests, still batched, are exported before the process goes.
    await stopTracing();
    log.info({ took_ms: graceMs - left() }, "Agent Service: stopped.");
    // Let the logger's last lines reach stdout before the process goes.
    log.flush(() => process.exit(0));
  };
  process.once("SIGTERM", shutdown);
  process.once("SIGINT", shutdown);
}
