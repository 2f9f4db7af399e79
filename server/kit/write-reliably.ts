import { isDatabaseUnavailable } from "@/db/failures";
import { log } from "@/server/observability";

const RETRY_FOR_MS = 10 * 60_000;
const MAX_DELAY_MS = 5000;

/**
 * Does a write that must not be lost to a database outage, often the very reason for it (giving
 * back an undelivered use, recording a failed run): if the database cannot be reached, it is
 * retried in the background with backoff for a while, without the caller waiting. Any other error
 * is thrown at once.
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
