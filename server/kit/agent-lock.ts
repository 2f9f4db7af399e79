import { type SQL, type SQLWrapper, sql } from "drizzle-orm";

/**
 * An agent's lock, taken before any of its rows: alone by its deletion, shared by every statement
 * of a use in flight (a chat's opening, store and release, a run's end), so neither holds a row
 * the other waits for (deleting an agent amid its chats deadlocked). Transaction-level, as
 * PgBouncer's transaction pooling needs.
 */

/** Its own class of advisory locks, apart from the migrations' (db/client.ts). */
const AGENT_LOCK_CLASS = 1_650_812_737;

const key = (aid: SQLWrapper | string) =>
  sql`${sql.raw(String(AGENT_LOCK_CLASS))}, hashtext(${aid}::text)`;

export function agentLockShared(aid: SQLWrapper | string): SQL {
  return sql`pg_advisory_xact_lock_shared(${key(aid)})`;
}

export function agentLockAlone(aid: SQLWrapper | string): SQL {
  return sql`pg_advisory_xact_lock(${key(aid)})`;
}

/**
 * True once the shared locks of every agent `aids` (a query of one `aid` column) names are held,
 * taken in the agents' order, so that statements locking several agents never wait on each other
 * in a circle. Uncorrelated, it runs once, before the statement reads any row.
 */
export function agentsLockedShared(aids: SQL): SQL {
  return sql`(SELECT count(${agentLockShared(sql`a.aid`)})
    FROM (SELECT DISTINCT aid FROM (${aids}) AS l ORDER BY aid) AS a) IS NOT NULL`;
}
