import { z } from "zod";
import { AppError } from "@/server/frame/errors";

/**
 * Keyset-pagination cursors. Opaque to clients (base64url of a small JSON object), so their
 * form can change; read back through a schema, so a forged one is a 400, never a 500.
 */
export function encodeCursor(position: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(position)).toString("base64url");
}

export function decodeCursor<T>(cursor: string, schema: z.ZodType<T>): T {
  try {
    const parsed = schema.safeParse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
    if (parsed.success) return parsed.data;
  } catch {
    // not JSON: refused below like any other cursor we did not give out
  }
  throw new AppError(
    "invalid_cursor",
    "The cursor is not one this service gave out; start again without it.",
    { errors: [{ field: "cursor", detail: "is not a cursor this service gave out" }] },
  );
}

/**
 * The cursor of a newest-first page ordered by a `bigint` identity id (messages, runs): the next
 * page is older than it. A whole number JS holds exactly is one such a column holds too.
 */
export const beforeIdCursor = z.object({ before: z.int().positive() });

/**
 * Splits what a keyset query fetched (`limit + 1` rows, the extra one telling whether another
 * page exists) into the page and the cursor of the next page, made from the page's last row.
 */
export function keysetPage<T>(
  rows: T[],
  limit: number,
  position: (last: T) => Record<string, string | number>,
): { page: T[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    page,
    nextCursor: rows.length > limit && last !== undefined ? encodeCursor(position(last)) : null,
  };
}

/**
 * Splits what a two-way keyset query fetched (`limit + 1` rows, in the direction it read) into the
 * page in its listed order and the cursors on either side. Read forwards, a further page exists
 * when more rows came; read backwards (from a previous-page cursor), a page follows.
 */
export function twoWayPage<T>(
  fetched: T[],
  limit: number,
  read: { backwards: boolean; fromCursor: boolean },
  cursorOf: (row: T, before: boolean) => string,
): { page: T[]; next_cursor: string | null; prev_cursor: string | null } {
  const more = fetched.length > limit;
  const page = fetched.slice(0, limit);
  if (read.backwards) page.reverse();
  const first = page[0];
  const last = page.at(-1);
  const hasNext = read.backwards || more;
  const hasPrevious = read.backwards ? more : read.fromCursor;
  return {
    page,
    next_cursor: hasNext && last !== undefined ? cursorOf(last, false) : null,
    prev_cursor: hasPrevious && first !== undefined ? cursorOf(first, true) : null,
  };
}

/** The cursor of a page of a ranking (no stable key to page by): how many came before it. */
export const offsetCursor = z.object({ offset: z.int().min(0).max(1_000_000) });
