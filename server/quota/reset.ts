import { type SQL, sql } from "drizzle-orm";
import { toSnakeCase } from "drizzle-orm/casing";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { agentQuotas, agentTokenUsage } from "@/db/schema";
import type { Clock } from "@/server/clock";
import { forgetNotices } from "./notices";
import { utcDay, utcMonth } from "./periods";
import { QUOTA_COUNTERS, type QuotaCounterName } from "./schema";

/**
 * Sets the named counters of an agent back to 0 (all of them when none are named), the periodic
 * ones in the current period; the limits stay. False when there is no such agent. One statement
 * for the quota row and the token counters (db/schema.ts), so no one reads one reset without
 * the other.
 */
export async function resetQuotaCounts(
  { db, clock }: { db: Db; clock: Clock },
  aid: string,
  counters: readonly QuotaCounterName[] = QUOTA_COUNTERS,
): Promise<boolean> {
  const now = clock.now();
  const named = new Set(counters);
  const q = agentQuotas;
  const t = agentTokenUsage;
  const assign = (pairs: [{ name: string }, unknown][]): SQL[] =>
    // By their names in the database: the schema's keys are camelCase.
    pairs.map(([column, value]) => sql`${sql.identifier(toSnakeCase(column.name))} = ${value}`);
  // The quota row is named in the statement even when none of its counters is: it says whether
  // the agent exists, and it is taken first, as a reserve takes it.
  const onQuota: SQL[] = [sql`aid = aid`];
  if (named.has("message_total")) onQuota.push(...assign([[q.messageCountTotal, 0]]));
  if (named.has("message_monthly"))
    onQuota.push(
      ...assign([
        [q.messageCountMonthly, 0],
        [q.messageMonth, sql`${utcMonth(now)}::date`],
      ]),
    );
  if (named.has("message_daily"))
    onQuota.push(
      ...assign([
        [q.messageCountDaily, 0],
        [q.messageDay, sql`${utcDay(now)}::date`],
      ]),
    );
  if (named.has("autonomous_total")) onQuota.push(...assign([[q.autonomousCountTotal, 0]]));
  if (named.has("autonomous_monthly"))
    onQuota.push(
      ...assign([
        [q.autonomousCountMonthly, 0],
        [q.autonomousMonth, sql`${utcMonth(now)}::date`],
      ]),
    );
  const onTokens: SQL[] = [];
  if (named.has("token_total"))
    onTokens.push(
      ...assign([
        [t.inputTokensTotal, 0],
        [t.outputTokensTotal, 0],
        [t.costTotal, 0],
      ]),
    );
  if (named.has("token_monthly"))
    onTokens.push(
      ...assign([
        [t.inputTokensMonthly, 0],
        [t.outputTokensMonthly, 0],
        [t.costMonthly, 0],
        [t.tokenMonth, sql`${utcMonth(now)}::date`],
      ]),
    );
  if (named.has("token_daily"))
    onTokens.push(
      ...assign([
        [t.inputTokensDaily, 0],
        [t.outputTokensDaily, 0],
        [t.costDaily, 0],
        [t.tokenDay, sql`${utcDay(now)}::date`],
      ]),
    );
  const tokens =
    onTokens.length === 0
      ? sql``
      : sql`, tokens AS (UPDATE ${t} SET ${sql.join(onTokens, sql`, `)}
          WHERE aid IN (SELECT aid FROM quota))`;
  const reset = rowsOf<{ aid: string }>(
    await db.execute(sql`
      WITH quota AS (UPDATE ${q} SET ${sql.join(onQuota, sql`, `)} WHERE aid = ${aid}
        RETURNING aid)${tokens}
      SELECT aid FROM quota`),
  );
  // Counting starts again: a limit reached after this is news again (agent.limit_reached).
  if (reset.length > 0) await forgetNotices(db, aid);
  return reset.length > 0;
}
