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

const HOUR_MS = 3_600_000;
let lastHour: { from: number; iso: string } | undefined;

/**
 * The start of the UTC hour `now` falls in, as ISO (usage is counted by the hour). Remembered
 * for the hour last asked: every chat stores its hour, and formatting it was a chat's cost.
 */
export function utcHour(now: Date): string {
  const at = now.getTime();
  // Written so that an invalid date (NaN) is never in range, and throws as toISOString does.
  if (lastHour !== undefined && at >= lastHour.from && at < lastHour.from + HOUR_MS)
    return lastHour.iso;
  const from = Math.floor(at / HOUR_MS) * HOUR_MS;
  const iso = new Date(from).toISOString();
  lastHour = { from, iso };
  return iso;
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

let lastDay: { from: number; until: number; periods: PeriodsAt } | undefined;

/**
 * The periods of `now`, remembered for the UTC day last asked (they change only at midnight): a
 * page of 100 agents presents all their quotas at one `now`, and formatting dates was an eighth
 * of its CPU time; a chat asks at its start and again at its answer.
 */
export function periodsAt(now: Date): PeriodsAt {
  const at = now.getTime();
  // Written so that an invalid date (NaN) is never in range, and throws as toISOString does.
  if (lastDay !== undefined && at >= lastDay.from && at < lastDay.until) return lastDay.periods;
  const day = utcDay(now);
  const until = nextUtcDayStart(now);
  lastDay = {
    from: Date.parse(`${day}T00:00:00.000Z`),
    until: until.getTime(),
    periods: {
      day,
      month: utcMonth(now),
      dailyResetsAt: until.toISOString(),
      monthlyResetsAt: nextUtcMonthStart(now).toISOString(),
    },
  };
  return lastDay.periods;
}
