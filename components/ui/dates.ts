/**
 * Dates and times, written one way across the dashboard: ISO dates (`2026-11-24`), a 24-hour
 * clock, and the time zone named once (`UTC`, or `GMT+9 (Asia/Tokyo)` where the short name alone
 * does not say which zone it is). Usage buckets are UTC days and hours, written in UTC; instants
 * (when something happened, when a limit resets) in the reader's zone. Code that runs in the
 * browser passes `now`, so these stay pure.
 */

/** The user's time zone, e.g. `Europe/Paris` (UTC when the browser does not say). */
export function timeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone ?? "UTC";
}

/** Made once per zone: the parts every format here is built from. */
const partFormats = new Map<string, Intl.DateTimeFormat>();

function partsOf(date: Date, zone: string): Record<string, string> {
  let format = partFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
      timeZoneName: "short",
    });
    partFormats.set(zone, format);
  }
  return Object.fromEntries(format.formatToParts(date).map((part) => [part.type, part.value]));
}

/** `UTC`, `CET (Europe/Paris)`: the zone's short name, and its IANA name when that says more. */
function zoneName(short: string, zone: string): string {
  return short === "UTC" || short === zone ? short : `${short} (${zone})`;
}

/** `2026-11-24 09:05:49 CET (Europe/Paris)`: an instant in full, in the reader's zone. */
export function formatAbsolute(iso: string, zone = timeZone()): string {
  const p = partsOf(new Date(iso), zone);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second} ${zoneName(p.timeZoneName ?? "", zone)}`;
}

/** `2026-11-26 09:00 GMT+9 (Asia/Tokyo)`: an instant to the minute, in the reader's zone. */
export function formatDateTime(iso: string, zone = timeZone()): string {
  const p = partsOf(new Date(iso), zone);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute} ${zoneName(p.timeZoneName ?? "", zone)}`;
}

/** `2026-11-24`: the UTC day an instant (ISO, or milliseconds since 1970) falls in. */
export function formatUtcDay(instant: string | number): string {
  return new Date(instant).toISOString().slice(0, 10);
}

/** `2026-11-24 08:00 UTC`: the UTC hour an instant falls in. */
export function formatUtcHour(instant: string | number): string {
  const iso = new Date(instant).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
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

/** An ISO 8601 instant in UTC as the service writes them in its sentences. */
const ISO_INSTANT = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z\b/g;

/**
 * The instants in a sentence of the service's, said in the reader's time: "it resets at
 * 2026-11-26T00:00:00Z" becomes "it resets at 2026-11-26 09:00 GMT+9 (Asia/Tokyo), in 9 hours".
 */
export function localInstants(text: string, now: number, zone = timeZone()): string {
  return text.replace(
    ISO_INSTANT,
    (iso) => `${formatDateTime(iso, zone)}, ${formatRelative(iso, now)}`,
  );
}
