/**
 * UTC calendar arithmetic for quota periods. Daily counters reset at 00:00 UTC, monthly ones on
 * the 1st at 00:00 UTC. Periods are named by their first day as `YYYY-MM-DD`, the form the
 * database stores in `date` columns.
 */

const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/** The UTC day `now` falls in, e.g. `2028-02-29`. */
export function utcDay(now: Date): string {
  return isoDay(now);
}

/** The first day of the UTC month `now` falls in, e.g. `2028-02-01`. */
export function utcMonth(now: Date): string {
  return `${isoDay(now).slice(0, 7)}-01`;
}

/** The start of the UTC hour `now` falls in, as ISO (usage is counted by the hour). */
export function utcHour(now: Date): string {
  return new Date(Math.floor(now.getTime() / 3_600_000) * 3_600_000).toISOString();
}

/** 00:00 UTC of the day after `now`. */
export function nextUtcDayStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

/** 00:00 UTC on the 1st of the month after `now` (Date.UTC carries December into January). */
export function nextUtcMonthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

/** Whole seconds from `now` until `later`, rounded up so a client that waits that long is in time. */
export function secondsUntil(now: Date, later: Date): number {
  return Math.max(0, Math.ceil((later.getTime() - now.getTime()) / 1000));
}

/** The periods of one instant, as presenting a quota needs them. */
export type PeriodsAt = {
  day: string;
  month: string;
  dailyResetsAt: string;
  monthlyResetsAt: string;
};

let lastPeriods: { at: number; periods: PeriodsAt } | undefined;

/**
 * The periods of `now`, remembered for the last instant asked: a page of 100 agents presents
 * all their quotas at one `now`, and formatting dates was an eighth of its CPU time.
 */
export function periodsAt(now: Date): PeriodsAt {
  const at = now.getTime();
  if (lastPeriods?.at !== at) {
    lastPeriods = {
      at,
      periods: {
        day: utcDay(now),
        month: utcMonth(now),
        dailyResetsAt: nextUtcDayStart(now).toISOString(),
        monthlyResetsAt: nextUtcMonthStart(now).toISOString(),
      },
    };
  }
  return lastPeriods.periods;
}
