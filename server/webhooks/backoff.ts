/**
 * When a failed delivery is tried again, and when it is given up: the first retry
 * WEBHOOK_RETRY_BASE_S after the first attempt, each later one twice as long after the one
 * before, each delay stretched by a random 0–20% (jitter: deliveries that failed together, to
 * an endpoint that was down, do not all come back at the same instant), and none after the
 * retry window: the last attempt is at the window's end. Pure, so tests choose the clock and
 * the randomness.
 */

/** The delay before the attempt after `attempts` attempts (1 or more), jitter included. */
export function retryDelayMs(attempts: number, baseMs: number, random: () => number): number {
  // 2^40 times any base is past every window: capping the exponent keeps the number finite.
  const doubled = baseMs * 2 ** Math.min(Math.max(attempts - 1, 0), 40);
  return doubled * (1 + 0.2 * random());
}

/** What follows a failed attempt: the next attempt's time, or giving up. */
export type AfterFailure = { retryAt: Date } | { giveUp: true };

/**
 * After a failed attempt at `now` (the delivery's `attempts`-th), the next one: `delay` later,
 * but never past `giveUpAt` (then at it); none once `giveUpAt` has come.
 */
export function afterFailure(
  now: Date,
  attempts: number,
  giveUpAt: Date,
  { baseMs, random = Math.random }: { baseMs: number; random?: () => number },
): AfterFailure {
  if (now.getTime() >= giveUpAt.getTime()) return { giveUp: true };
  const next = now.getTime() + retryDelayMs(attempts, baseMs, random);
  return { retryAt: new Date(Math.min(next, giveUpAt.getTime())) };
}

/** When retries of a delivery stop: its own time if set (a retry asked for), else its event's + the window. */
export function giveUpTime(
  delivery: { createdAt: Date; giveUpAt: Date | null },
  windowMs: number,
): Date {
  return delivery.giveUpAt ?? new Date(delivery.createdAt.getTime() + windowMs);
}
