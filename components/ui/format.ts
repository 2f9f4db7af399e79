/**
 * Formatters for the dashboard: numbers, counts, times (relative, with the absolute time and
 * zone for a title), addresses, and the server's sentences in the words a person uses.
 * Browser-only code paths take `now` as an argument, so they stay pure.
 */

const numbers = new Intl.NumberFormat("en");

export function formatNumber(n: number): string {
  return numbers.format(n);
}

/** `1 agent`, `2 agents`, `1,204 agents`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatNumber(n)} ${n === 1 ? one : many}`;
}

/** The user's time zone, e.g. `Europe/Paris` (UTC when the browser does not say). */
export function timeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone ?? "UTC";
}

let absolute: Intl.DateTimeFormat | undefined;

/** `24 Nov 2026, 01:36:02 CET (Europe/Paris)`: what a hover shows beside a relative time. */
export function formatAbsolute(iso: string): string {
  // The user's locale and zone; made once, when first needed (in the browser).
  absolute ??= new Intl.DateTimeFormat(undefined, {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    timeZoneName: "short",
  });
  return `${absolute.format(new Date(iso))} (${timeZone()})`;
}

const relative = new Intl.RelativeTimeFormat("en", { numeric: "auto" });

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 24 * 3600],
  ["month", 30 * 24 * 3600],
  ["day", 24 * 3600],
  ["hour", 3600],
  ["minute", 60],
];

/** `5 minutes ago`, `in 3 hours`, `just now`: the unit is the largest that fits. */
export function formatRelative(iso: string, now: number): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  if (Math.abs(seconds) < 45) return "just now";
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  }
  return relative.format(Math.round(seconds / 60), "minute");
}

/** `0x5B38…ddC4`: enough of an address to tell it apart; the full one goes in a title. */
export function shortAddress(address: string): string {
  return address.length > 12 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}

/** A percentage for people: `83%`, `100%`, `<1%`. */
export function formatPercent(fraction: number): string {
  if (fraction > 0 && fraction < 0.01) return "<1%";
  return `${Math.floor(fraction * 100)}%`;
}

/**
 * The server's field rules are written for API clients (`or null for unlimited`); in a form,
 * null is an empty field. The sentence is otherwise kept: it is the server's own rule.
 */
export function formWords(detail: string): string {
  return detail
    .replace(/, or null for unlimited/g, ", or left empty for no limit")
    .replace(/, or null\b/g, ", or left empty")
    .replace(/; send null to clear it/g, "; leave it empty to clear it");
}

/** A limit for people: a number, or `no limit` for null (undefined: not known here). */
export function formNumber(n: number | null | undefined): string {
  return n === null ? "no limit" : n === undefined ? "?" : formatNumber(n);
}

const costs = new Intl.NumberFormat("en", { maximumSignificantDigits: 4 });

/** A cost in the operator's currency (prices have no currency here): `0.0136`, `1,204`. */
export function formatCost(cost: number): string {
  return costs.format(cost);
}
