import { z } from "zod";
import { wholeNumberParam } from "@/server/kit/bounds";

/** The paging parameters of every listing: `limit` (with its bounds) and an opaque `cursor`. */
export function pageParams(max: number, fallback: number) {
  return {
    limit: wholeNumberParam(1, max).default(fallback),
    /** The `next_cursor` of the previous page. */
    cursor: z.string().max(512, "is not a cursor this service gave out").optional(),
  };
}

/**
 * `include_total`: whether a listing also counts what matches over all pages. A JSON boolean
 * from tRPC, or `true`/`false` in a REST query string (anything else is refused, not truthy).
 */
export function includeTotalParam(what: string) {
  return z
    .union([
      z.boolean(),
      z.enum(["true", "false"], { error: "must be true or false" }).transform((v) => v === "true"),
    ])
    .optional()
    .meta({ description: `true: also count the ${what} that match, over all pages (\`total\`).` });
}

/** The paging fields of a list's answer: the cursors both ways, and the total when asked for. */
export function pageOutputFields(what: string) {
  return {
    next_cursor: z.string().nullable(),
    prev_cursor: z
      .string()
      .nullable()
      .optional()
      .meta({ description: "The cursor of the page before this one; null on the first page." }),
    total: z
      .int()
      .optional()
      .meta({ description: `With include_total=true: the ${what} that match, over all pages.` }),
  };
}
