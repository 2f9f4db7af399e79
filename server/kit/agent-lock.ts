import { type SQL, type SQLWrapper, sql } from "drizzle-orm";

/**
 * An agent's lock, taken before any of its rows: alone (exclusive) by its deletion, shared by
 * every statement that writes its rows for a use in flight (a chat's opening, store and release,
 * a run's end). A deletion then waits for those and they for it, and neither can hold a row the
 * other waits for: without it, deleting an agent amid its chats deadlocked (tests/integration/
 * agents.test.ts). A transaction-level advisory lock, so PgBouncer's transaction pooling keeps it.
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
