import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { agentQuotas } from "@/db/schema";
import type { Clock } from "@/server/clock";
import { forgetNotices } from "./notices";
import { utcDay, utcMonth } from "./periods";
import { QUOTA_COUNTERS, type QuotaCounterName } from "./schema";

/**
 * Sets the named counters of an agent back to 0 (all of them when none are named), the periodic
 * ones in the current period; the limits stay. False when there is no such agent.
 */
export async function resetQuotaCounts(
  { db, clock }: { db: Db; clock: Clock },
  aid: string,
  counters: readonly QuotaCounterName[] = QUOTA_COUNTERS,
): Promise<boolean> {
  const now = clock.now();
  const set: Partial<typeof agentQuotas.$inferInsert> = {};
  const named = new Set(counters);
  if (named.has("message_total")) set.messageCountTotal = 0;
  if (named.has("message_monthly"))
    Object.assign(set, { messageCountMonthly: 0, messageMonth: utcMonth(now) });
  if (named.has("message_daily"))
    Object.assign(set, { messageCountDaily: 0, messageDay: utcDay(now) });
  if (named.has("autonomous_total")) set.autonomousCountTotal = 0;
  if (named.has("autonomous_monthly"))
    Object.assign(set, { autonomousCountMonthly: 0, autonomousMonth: utcMonth(now) });
  if (named.has("token_total"))
    Object.assign(set, { inputTokensTotal: 0, outputTokensTotal: 0, costTotal: 0 });
  if (named.has("token_monthly"))
    Object.assign(set, {
      inputTokensMonthly: 0,
      outputTokensMonthly: 0,
      costMonthly: 0,
      tokenMonth: utcMonth(now),
    });
  if (named.has("token_daily"))
    Object.assign(set, {
      inputTokensDaily: 0,
      outputTokensDaily: 0,
      costDaily: 0,
      tokenDay: utcDay(now),
    });
  const reset = await db
    .update(agentQuotas)
    .set(set)
    .where(eq(agentQuotas.aid, aid))
    .returning({ aid: agentQuotas.aid });
  // Counting starts again: a limit reached after this is news again (agent.limit_reached).
  if (reset.length > 0) await forgetNotices(db, aid);
  return reset.length > 0;
}
