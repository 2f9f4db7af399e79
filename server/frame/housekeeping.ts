import type { Db } from "@/db/client";
import { expireTurns, type TurnState } from "@/server/approvals";
import { purgeOldAudit } from "@/server/audit";
import { purgeExpiredAttempts, purgeExpiredSessions, purgeOldFailures } from "@/server/auth";
import { purgeOldChatWindows } from "@/server/chat";
import { purgeOldIdempotencyKeys } from "@/server/idempotency";
import type { Clock } from "@/server/kit/clock";
import { purgeExpiredNonces } from "@/server/nonces";
import { log } from "@/server/observability";
import {
  purgeOldNotices,
  releaseMessage,
  reservationLifetimeMs,
  sweepReservations,
} from "@/server/quota";
import { purgeOldWindows } from "@/server/rate-limits";
import { purgeOldRequests } from "@/server/request-log";
import { failStalledResponses, purgeOldResponseEvents } from "@/server/responses";
import { failPausedRun } from "@/server/runs";
import { purgeOldDeliveries } from "@/server/webhooks";

/**
 * Background work of every instance, each statement safe to run from many at once: give back the
 * message uses of chats whose process died, and delete what no longer counts. Returns a stop
 * function.
 */
export function startHousekeeping(
  { db, clock }: { db: Db; clock: Clock },
  {
    llmTimeoutMs,
    requestLogDays,
    auditRetentionDays,
  }: { llmTimeoutMs: number; requestLogDays: number; auditRetentionDays: number },
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
    await endExpiredTurns({ db, clock }, now);
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
    await purgeExpiredAttempts(db, now);
    await purgeExpiredNonces(db, now);
    await purgeOldFailures(db, now);
    await purgeOldDeliveries(db, now);
    await purgeOldNotices(db, now);
    await purgeOldIdempotencyKeys(db, now);
    await purgeOldResponseEvents(db, now);
    await purgeOldAudit(db, now, auditRetentionDays);
  };
  const timer = setInterval(() => {
    tick().catch((error: unknown) =>
      log.error({ err: error }, "Housekeeping failed; trying again"),
    );
  }, 5000);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Turns whose tool calls waited too long for an approval (or whose resumer died): each taken once
 * by the statement that deletes it, then its chat's message given back or its run failed.
 */
export async function endExpiredTurns({ db, clock }: { db: Db; clock: Clock }, now: Date) {
  const expired = await expireTurns(db, now);
  for (const turn of expired) {
    if (turn.reservationId !== null)
      await releaseMessage(db, { aid: turn.aid, reservationId: turn.reservationId });
    if (turn.runId !== null)
      await failPausedRun(
        { db, clock },
        { runId: turn.runId, aid: turn.aid },
        turn.resuming
          ? "Interrupted: the instance resuming it after its approvals stopped before it finished."
          : unapproved(turn.state),
      );
  }
  if (expired.length > 0)
    log.info(
      { turns: expired.length },
      `Agent Service: ended ${expired.length} turns whose tool calls were not decided in time.`,
    );
}

function unapproved(state: TurnState): string {
  const tools = state.paused.calls.flatMap((entry) =>
    "waiting" in entry ? [`'${entry.waiting.tool}'`] : [],
  );
  return `Not approved in time: the call of ${tools.join(", ")} waited for an approval that did not come (TOOL_APPROVAL_WAIT_S).`;
}
