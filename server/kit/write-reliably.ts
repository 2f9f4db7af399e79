import { isDatabaseUnavailable } from "@/db/failures";
import { log } from "@/server/observability";

const RETRY_FOR_MS = 10 * 60_000;
const MAX_DELAY_MS = 5000;

/**
 * Does a write that must not be lost to a database outage, which is often the very reason for
 * it (giving back a use that was not delivered, recording a run that failed): if the database
 * cannot be reached, the write is tried again in the background, with backoff up to 5 s, for
 * 10 minutes. The caller does not wait for the retries; only a process that dies meanwhile
 * loses the write. Any other error is thrown at once. `what` names the write in the log.
 */
export async function writeReliably(what: string, write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (!isDatabaseUnavailable(error)) throw error;
    retryLater(what, write, Date.now() + RETRY_FOR_MS, 250);
  }
}

function retryLater(
  what: string,
  write: () => Promise<unknown>,
  giveUpAt: number,
  delayMs: number,
): void {
  const timer = setTimeout(() => {
    write().catch((error: unknown) => {
      if (isDatabaseUnavailable(error) && Date.now() < giveUpAt) {
        retryLater(what, write, giveUpAt, Math.min(delayMs * 2, MAX_DELAY_MS));
      } else {
        log.error({ err: error }, `Giving up ${what}`);
      }
    });
  }, delayMs);
  // Retries never keep a stopping process alive; what they leave, the sweeper or an admin sees.
  timer.unref();
}
