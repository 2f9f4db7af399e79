// UTC calendar arithmetic for quota periods: days reset at 00:00 UTC, months on the 1st. A period
// is named by its first day as `YYYY-MM-DD`, the form of the database's `date` columns.

const isoDay = (d: Date) => d.toISOString().slice(0, 10);

export function utcDay(now: Date): string {
  return isoDay(now);
}

export function utcMonth(now: Date): string {
  return `${isoDay(now).slice(0, 7)}-01`;
}

const HOUR_MS = 3_600_000;
let lastHour: { from: number; iso: string } | undefined;

/** The start of the UTC hour `now` falls in, as ISO, remembered as every chat stores its hour. */
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

export type PeriodsAt = {
  day: string;
  month: string;
  dailyResetsAt: string;
  monthlyResetsAt: string;
};

let lastDay: { from: number; until: number; periods: PeriodsAt } | undefined;

/**
 * The periods of `now`, remembered for the UTC day last asked (they change only at midnight): a
 * page of agents presents all their quotas at one `now`, and a chat asks twice.
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
