import { lt, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { prepared } from "@/db/prepared";
import { rowsOf } from "@/db/rows";
import { rateWindows } from "@/db/schema";
import { AppError } from "@/server/frame/errors";

/**
 * Per-client limits on writes anyone may make (nonces): a window opens with a client's first
 * request, and past `limit` in it requests are refused until it ends. One statement, so exact
 * across instances.
 */

const WINDOW_MS = 60_000;

/** Counts one request of `client` for `scope`; throws 429 `rate_limited` past `limit`. */
export async function countRequest(
  db: Db,
  {
    scope,
    client,
    limit,
    now,
    what,
  }: { scope: string; client: string; limit: number; now: Date; what: string },
): Promise<void> {
  const windowOpenAfter = new Date(now.getTime() - WINDOW_MS).toISOString();
  const [counted] = rowsOf<{ count: number }>(
    await db.execute(sql`
      INSERT INTO ${rateWindows} AS w (scope, client, window_started_at, count)
      VALUES (${scope}, ${client}, ${now.toISOString()}::timestamptz, 1)
      ON CONFLICT (scope, client) DO UPDATE SET
        count = CASE WHEN w.window_started_at <= ${windowOpenAfter}::timestamptz THEN 1 ELSE w.count + 1 END,
        window_started_at = CASE WHEN w.window_started_at <= ${windowOpenAfter}::timestamptz
          THEN EXCLUDED.window_started_at ELSE w.window_started_at END
      WHERE w.window_started_at <= ${windowOpenAfter}::timestamptz OR w.count < ${limit}
      RETURNING count`),
  );
  if (counted) return;
  const [window] = await windowOf(db).execute({ scope, client });
  const endsInMs = (window?.startedAt.getTime() ?? now.getTime()) + WINDOW_MS - now.getTime();
  const retryAfterS = Math.max(1, Math.ceil(endsInMs / 1000));
  throw new AppError(
    "rate_limited",
    `Too many ${what} from your address: ${limit} a minute; try again in ${retryAfterS} s.`,
    { retryAfterS },
  );
}

export async function purgeOldWindows(db: Db, now: Date): Promise<void> {
  await db
    .delete(rateWindows)
    .where(lt(rateWindows.windowStartedAt, new Date(now.getTime() - 2 * WINDOW_MS)));
}

function windowOf(db: Db) {
  return prepared(db, "rate-window-of", () =>
    db
      .select({ startedAt: rateWindows.windowStartedAt })
      .from(rateWindows)
      .where(
        sql`${rateWindows.scope} = ${sql.placeholder("scope")} AND ${rateWindows.client} = ${sql.placeholder("client")}`,
      )
      .prepare("rate_window_of"),
  );
}
