import { mapRowsByPlan } from "./row-mapping";

/**
 * Prepared queries, built once per database handle and reused: drizzle otherwise rebuilds the
 * SQL text of every query on every call, which profiling showed to be about a quarter of a
 * chat's CPU time. Their rows are mapped by a plan made with them (row-mapping.ts). Keyed by
 * the handle itself, so a query prepared on a transaction runs in that transaction and never
 * outside it.
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
