import { formatUtcDay, formatUtcHour } from "../ui/dates";
import { formatCost, formatNumber } from "../ui/format";

/**
 * What a usage chart writes: its axes' labels and its legend's figures, as the rest of the
 * dashboard writes them (ISO dates of UTC days, costs and counts as the tables give them).
 */

/** What a chart's figures are: whole numbers (messages, runs, tokens) or costs. */
export type ChartUnit = "count" | "cost";

const DAY_S = 86_400;

/** Steps between ticks of a count axis: whole numbers only (no "0.5 messages"). */
export const COUNT_STEPS = Array.from({ length: 16 }, (_, power) =>
  [1, 2, 5].map((step) => step * 10 ** power),
).flat();

/** Steps between ticks of a day axis: whole days, so that each tick is a UTC midnight. */
export const DAY_STEPS = [1, 2, 3, 7, 14, 28, 56].map((days) => days * DAY_S);

/** The decimals that write `step` exactly (0.000025: 6), up to 20. */
function decimalsOf(step: number): number {
  for (let decimals = 0; decimals < 20; decimals++) {
    const scaled = step * 10 ** decimals;
    if (Math.abs(scaled - Math.round(scaled)) < 1e-9 * Math.max(1, scaled)) return decimals;
  }
  return 20;
}

/**
 * The labels of a value axis's ticks, `step` apart: as many decimals as the step needs, so that
 * small costs read 0.00001, 0.00002 (not 0, 0, 0); large figures short (1.2M).
 */
export function valueTicks(values: number[], step: number): string[] {
  const largest = Math.max(0, ...values.map(Math.abs));
  const format =
    largest >= 10_000
      ? new Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 2 })
      : new Intl.NumberFormat("en", { maximumFractionDigits: decimalsOf(step) });
  return values.map((value) => format.format(value));
}

/**
 * The labels of a time axis's ticks (seconds since 1970, UTC): the day of a daily series; on an
 * hourly one, the day at midnight and the hour otherwise.
 */
export function timeTicks(values: number[], hourly: boolean): string[] {
  return values.map((seconds) => {
    if (!hourly || seconds % DAY_S === 0) return formatUtcDay(seconds * 1000);
    return formatUtcHour(seconds * 1000).slice(11, 16);
  });
}

/** A bucket as the legend names it: `2026-11-24`, or `2026-11-24 08:00 UTC`. */
export function bucketLabel(seconds: number | null, hourly: boolean): string {
  if (seconds === null) return "—";
  return hourly ? formatUtcHour(seconds * 1000) : formatUtcDay(seconds * 1000);
}

/**
 * A figure as the legend gives it, whole: `1,204`, `0.00001875`; a cost the service could not
 * price (null) is `unknown`, never 0.
 */
export function figureLabel(value: number | null, unit: ChartUnit): string {
  if (value === null || Number.isNaN(value)) return "unknown";
  return unit === "cost" ? formatCost(value) : formatNumber(value);
}
