/**
 * When a failed delivery is tried again and when it is given up: delays double from
 * WEBHOOK_RETRY_BASE_S, each stretched by a random jitter so that deliveries that failed together
 * do not all come back at once, and the last attempt is at the retry window's end. Pure, so that
 * tests choose the clock and the randomness.
 */

/** The delay before the attempt after `attempts` attempts (1 or more), jitter included. */
export function retryDelayMs(attempts: number, baseMs: number, random: () => number): number {
  // 2^40 times any base is past every window: capping the exponent keeps the number finite.
  const doubled = baseMs * 2 ** Math.min(Math.max(attempts - 1, 0), 40);
  return doubled * (1 + 0.2 * random());
}

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
