import { mapRowsByPlan } from "./drizzle-internals";

/**
 * Prepared queries, built once per database handle: drizzle otherwise rebuilds every query's SQL
 * text on every call. Keyed by the handle, so that a query prepared on a transaction stays in it.
 */
const cache = new WeakMap<object, Map<string, unknown>>();

export function prepared<T>(db: object, key: string, build: () => T): T {
  let queries = cache.get(db);
  if (!queries) {
    queries = new Map();
    cache.set(db, queries);
  }
  let query = queries.get(key) as T | undefined;
  if (query === undefined) {
    query = mapRowsByPlan(build());
    queries.set(key, query);
  }
  return query;
}
