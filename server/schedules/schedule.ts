import { Cron } from "croner";

/**
 * The schedule's arithmetic. An agent's runs sit on a grid: every `minutes` from the time it
 * was enabled, or at the occurrences of its cron expression in its time zone (croner computes
 * them, daylight-saving gaps and repeats by its documented rule). A slot missed while no
 * scheduler ran is not replayed one by one: the overdue run happens once, and the next one is
 * the first slot after now.
 */

const MINUTE_MS = 60_000;

/**
 * The first occurrence of `cron` in `timezone` after `after`; null if it never comes again.
 * Croner's rule at daylight-saving changes (its README): a fixed time (one value in minute
 * and hour) that falls in a gap runs at the first valid time after it, and once when it
 * repeats; an interval (a wildcard, step, range or list) skips the gap and runs both times.
 */
export function nextOccurrence(cron: string, timezone: string, after: Date): Date | null {
  return new Cron(cron, { mode: "5-part", timezone }).nextRun(after);
}

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
  /** A paused agent keeps its next due time; resumed, it goes on without catching up. */
  paused: boolean;
  autonomousMinutes: number;
  autonomousCron: string | null;
  autonomousTimezone: string;
  autonomousNextRunAt: Date | null;
};

/** The slot after a run due at `dueAt`: the next occurrence, or the next on the grid. */
export function nextSlot(
  agent: Pick<ScheduleState, "autonomousMinutes" | "autonomousCron" | "autonomousTimezone">,
  dueAt: Date,
  now: Date,
): Date | null {
  return agent.autonomousCron
    ? nextOccurrence(agent.autonomousCron, agent.autonomousTimezone, now)
    : nextSlotAfter(dueAt, agent.autonomousMinutes, now);
}

/**
 * When the next run is due after a configuration change, so that it takes effect at the next
 * tick: off = never. With a cron expression: the next occurrence after now, unless expression,
 * zone and switch are as they were (then unchanged). Without: just switched on (or new) = now;
 * a new interval = the last slot plus the new interval (which may already be due); otherwise
 * unchanged. A cron expression that never comes again (a date of a past year) leaves none.
 * An agent resumed after a pause goes on from the next slot after now, whatever it missed.
 */
export function nextRunAfterChange(
  before: ScheduleState | undefined,
  after: Omit<ScheduleState, "autonomousNextRunAt">,
  now: Date,
): Date | null {
  const next = nextRunOfConfig(before, after, now);
  // Resumed: the slots missed while paused are not run now; the next one after now is.
  if (before?.paused && !after.paused && next && next <= now) return nextSlot(after, next, now);
  return next;
}

function nextRunOfConfig(
  before: ScheduleState | undefined,
  after: Omit<ScheduleState, "autonomousNextRunAt">,
  now: Date,
): Date | null {
  if (!after.autonomousEnabled) return null;
  if (after.autonomousCron) {
    const same =
      before?.autonomousEnabled &&
      before.autonomousNextRunAt &&
      before.autonomousCron === after.autonomousCron &&
      before.autonomousTimezone === after.autonomousTimezone;
    if (same) return before.autonomousNextRunAt;
    return nextOccurrence(after.autonomousCron, after.autonomousTimezone, now);
  }
  if (!before?.autonomousEnabled || !before.autonomousNextRunAt || before.autonomousCron)
    return now;
  if (before.autonomousMinutes === after.autonomousMinutes) return before.autonomousNextRunAt;
  const lastSlot = before.autonomousNextRunAt.getTime() - before.autonomousMinutes * MINUTE_MS;
  return new Date(lastSlot + after.autonomousMinutes * MINUTE_MS);
}
