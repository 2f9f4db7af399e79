import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";

/**
 * Runs the admin's reads of the request log with plans made for their values: an agent, caller
 * or status may have a handful of entries or millions, and the generic plan a prepared statement
 * falls back to after five runs guesses the same for all (a BitmapAnd of two filters, sorted,
 * for a pair that matches a million entries).
 */
export function withCustomPlans<T>(db: Db, read: (db: Db) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL plan_cache_mode = force_custom_plan`);
    return read(tx as unknown as Db);
  });
}
