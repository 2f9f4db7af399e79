import type { Db } from "@/db/client";
import { purgeExpiredSessions, purgeOldFailures } from "@/server/auth";
import { purgeOldChatWindows } from "@/server/chat";
import { purgeOldIdempotencyKeys } from "@/server/idempotency";
import type { Clock } from "@/server/kit/clock";
import { purgeExpiredNonces } from "@/server/nonces";
import { log } from "@/server/observability";
import { purgeOldNotices, reservationLifetimeMs, sweepReservations } from "@/server/quota";
import { purgeOldWindows } from "@/server/rate-limits";
import { purgeOldRequests } from "@/server/request-log";
import { failStalledResponses, purgeOldResponseEvents } from "@/server/responses";
import { purgeOldDeliveries } from "@/server/webhooks";

/**
 * Background work of every instance, each statement safe to run from many at once: give back the
 * message uses of chats whose process died, and delete what no longer counts. Returns a stop
 * function.
 */
export function startHousekeeping(
  { db, clock }: { db: Db; clock: Clock },
  { llmTimeoutMs, requestLogDays }: { llmTimeoutMs: number; requestLogDays: number },
): () => void {
  let ticks = 0;
  // The request log's purge goes on until nothing old is left, which after a flood or a long
  // stop can take minutes: it runs beside the ticks, one at a time, so the sweep keeps its pace.
  let purging = false;
  const purgeRequests = (now: Date) => {
    if (purging) return;
    purging = true;
    purgeOldRequests(db, now, requestLogDays)
      .catch((error: unknown) =>
        log.error({ err: error }, "Request log purge failed; trying again"),
      )
      .finally(() => {
        purging = false;
      });
  };
  const tick = async () => {
    const now = clock.now();
    const given = await sweepReservations(
      db,
      new Date(now.getTime() - reservationLifetimeMs(llmTimeoutMs)),
    );
    if (given > 0)
      log.info(
        { uses: given },
        `Agent Service: gave back ${given} message uses of chats whose process died.`,
      );
    const stalled = await failStalledResponses(db, now);
    if (stalled.length > 0)
      log.warn(
        { responses: stalled },
        `Agent Service: failed ${stalled.length} background responses whose instance stopped.`,
      );
    if (ticks++ % 12 !== 0) return;
    purgeRequests(now);
    await purgeOldChatWindows(db, now);
    await purgeOldWindows(db, now);
    await purgeExpiredSessions(db, now);
    await purgeExpiredNonces(db, now);
    await purgeOldFailures(db, now);
    await purgeOldDeliveries(db, now);
    await purgeOldNotices(db, now);
    await purgeOldIdempotencyKeys(db, now);
    await purgeOldResponseEvents(db, now);
  };
  const timer = setInterval(() => {
    tick().catch((error: unknown) =>
      log.error({ err: error }, "Housekeeping failed; trying again"),
    );
  }, 5000);
  timer.unref();
  return () => clearInterval(timer);
}
