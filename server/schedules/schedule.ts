import { Cron } from "croner";

/**
 * The schedule's arithmetic: runs sit on a grid every `minutes` from when the agent was enabled,
 * or at its cron expression's occurrences in its time zone. Slots missed while no scheduler ran
 * are not replayed: the overdue run happens once, then the first slot after now.
 */

const MINUTE_MS = 60_000;

/**
 * The first occurrence of `cron` in `timezone` after `after`; null if it never comes again. At
 * daylight-saving changes (croner's rule) a fixed time in a gap runs at the first valid time after
 * it and once when it repeats; an interval skips the gap and runs both times.
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
 * When the next run is due after a configuration change, taking effect at the next tick: off,
 * never; cron, its next occurrence unless expression, zone and switch are unchanged; interval,
 * now when just switched on, else the last slot plus the new interval. A resumed agent goes on
 * from the next slot after now.
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
