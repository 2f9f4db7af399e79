import { z } from "zod";

/** The paging parameters of every listing: `limit` (with its bounds) and an opaque `cursor`. */
export function pageParams(max: number, fallback: number) {
  const rule = `must be a whole number from 1 to ${max}`;
  return {
    limit: z.coerce.number({ error: rule }).int(rule).min(1, rule).max(max, rule).default(fallback),
    /** The `next_cursor` of the previous page. */
    cursor: z.string().max(512, "is not a cursor this service gave out").optional(),
  };
}
