import { z } from "zod";

// Numbers and instants a client may send, bounded where input is parsed: a value PostgreSQL's
// column or a JS Date cannot hold would otherwise fail in the query as a 500.

/** The largest PostgreSQL `integer` (int4): `serial` ids and `integer` columns hold no more. */
export const INT4_MAX = 2_147_483_647;

export function wholeNumber(min: number, max: number, what = "a whole number") {
  const rule = wholeRule(min, max, what);
  return z.number({ error: rule }).int(once(rule)).min(min, rule).max(max, rule);
}

/** A whole number from `min` to `max` in a query string or a path, where it comes as text. */
export function wholeNumberParam(min: number, max: number, what = "a whole number") {
  const rule = wholeRule(min, max, what);
  return z.coerce.number({ error: rule }).int(once(rule)).min(min, rule).max(max, rule);
}

const wholeRule = (min: number, max: number, what: string) =>
  `must be ${what} from ${min} to ${max}`;

/** Past JS's safe integers a number fails `int` and `max` alike: one refusal is enough. */
const once = (rule: string) => ({ error: rule, abort: true });

/**
 * Years 1970 to 9998: PostgreSQL reads no year 0000, the API writes four-digit years only, and a
 * usage range moves its ends by up to a day and starts 30 days back, so the margins keep every
 * instant it reaches valid. Nothing stored is older than 1970.
 */
const EARLIEST_INSTANT = "1970-01-01T00:00:00Z";
const LATEST_INSTANT = "9998-12-31T23:59:59.999Z";
export const INSTANT_RANGE = `${EARLIEST_INSTANT} to ${LATEST_INSTANT}`;

const EARLIEST_MS = Date.parse(EARLIEST_INSTANT);
const LATEST_MS = Date.parse(LATEST_INSTANT);

/** An ISO 8601 instant with its offset, within INSTANT_RANGE, as text. */
export function instant() {
  const rule = `must be an ISO 8601 instant from ${INSTANT_RANGE}, e.g. 2026-11-01T00:00:00Z`;
  return (
    z.iso
      .datetime({ offset: true, error: rule })
      // NaN (not an instant at all) passes here: the format's own issue says what is wrong.
      .refine((text) => !(Date.parse(text) < EARLIEST_MS || Date.parse(text) > LATEST_MS), rule)
  );
}
