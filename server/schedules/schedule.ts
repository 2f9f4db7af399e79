/**
 * The schedule's arithmetic. An agent's runs sit on a grid: every `minutes` from the time it
 * was enabled. A slot missed while no scheduler ran is not replayed one by one: the overdue run
 * happens once, and the next one goes back on the grid, after now.
 */

const MINUTE_MS = 60_000;

/** The first slot on the grid of `dueAt` every `minutes` that lies after `now`. */
export function nextSlotAfter(dueAt: Date, minutes: number, now: Date): Date {
  const interval = minutes * MINUTE_MS;
  const next = dueAt.getTime() + interval;
  if (next > now.getTime()) return new Date(next);
  const missed = Math.floor((now.getTime() - next) / interval) + 1;
  return new Date(next + missed * interval);
}

type ScheduleState = {
  autonomousEnabled: boolean;
  autonomousMinutes: number;
  autonomousNextRunAt: Date | null;
};

/**
 * When the next run is due after a configuration change, so that it takes effect at the next
 * tick: off = never; just switched on (or new) = now; a new interval = the last slot plus the
 * new interval (which may already be due); otherwise unchanged.
 */
export function nextRunAfterChange(
  before: ScheduleState | undefined,
  after: Pick<ScheduleState, "autonomousEnabled" | "autonomousMinutes">,
  now: Date,
): Date | null {
  if (!after.autonomousEnabled) return null;
  if (!before?.autonomousEnabled || !before.autonomousNextRunAt) return now;
  if (before.autonomousMinutes === after.autonomousMinutes) return before.autonomousNextRunAt;
  const lastSlot = before.autonomousNextRunAt.getTime() - before.autonomousMinutes * MINUTE_MS;
  return new Date(lastSlot + after.autonomousMinutes * MINUTE_MS);
}
