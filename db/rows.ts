/**
 * The rows of a raw `db.execute`: postgres.js returns them as an array, PGlite as `{ rows }`.
 * Typed queries (select, insert … returning) need none of this.
 */
export function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}
