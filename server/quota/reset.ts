import { eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { agentQuotas, agentTokenUsage } from "@/db/schema";
import { type AuditSource, recordChange } from "@/server/audit";
import type { Clock } from "@/server/kit/clock";
import { COUNTERS, periodValue, type QuotaKind } from "./counters";
import { forgetNotices } from "./notices";
import { utcDay, utcMonth } from "./periods";
import { QUOTA_COUNTERS, type QuotaCounterName } from "./schema";
import { periodOf, TOKEN_BUDGETS } from "./tokens";

/**
 * Sets the named counters of an agent (all when none are named) back to 0; the limits stay. One
 * statement for the quota row and the token counters, so no one reads one reset without the other.
 */
export async function resetQuotaCounts(
  { db: outer, clock, ...source }: { db: Db; clock: Clock } & AuditSource,
  aid: string,
  counters: readonly QuotaCounterName[] = QUOTA_COUNTERS,
): Promise<boolean> {
  return outer.transaction((db) => resetIn(db, clock.now(), source, aid, counters));
}

async function resetIn(
  db: Db,
  now: Date,
  source: AuditSource,
  aid: string,
  counters: readonly QuotaCounterName[],
): Promise<boolean> {
  const [day, month] = [utcDay(now), utcMonth(now)];
  const named = new Set<string>(counters);
  // The quota row is written even when none of its counters is named: it says whether the
  // agent exists, and it is taken first, as a reserve takes it.
  const onQuota: Record<string, unknown> = { aid: sql`${agentQuotas.aid}` };
  for (const kind of ["message", "autonomous"] as QuotaKind[]) {
    for (const counter of COUNTERS[kind]) {
      if (!named.has(`${kind}_${counter.period}`)) continue;
      onQuota[counter.count] = 0;
      if (counter.periodColumn) onQuota[counter.periodColumn] = periodValue(counter, day, month);
    }
  }
  // A token counter's reset clears its cost too.
  const onTokens: Record<string, unknown> = {};
  for (const budget of TOKEN_BUDGETS) {
    if (!named.has(`token_${budget.period}`)) continue;
    Object.assign(onTokens, { [budget.input]: 0, [budget.output]: 0, [budget.cost]: 0 });
    if (budget.periodColumn) onTokens[budget.periodColumn] = periodOf(budget, day, month);
  }
  const quota = db
    .$with("quota")
    .as(
      db
        .update(agentQuotas)
        .set(onQuota)
        .where(eq(agentQuotas.aid, aid))
        .returning({ aid: agentQuotas.aid }),
    );
  const withTokens =
    Object.keys(onTokens).length === 0
      ? []
      : [
          db
            .$with("tokens")
            .as(
              db
                .update(agentTokenUsage)
                .set(onTokens)
                .where(sql`${agentTokenUsage.aid} IN (SELECT aid FROM quota)`)
                .returning({ aid: agentTokenUsage.aid }),
            ),
        ];
  const reset = await db
    .with(quota, ...withTokens)
    .select({ aid: quota.aid })
    .from(quota);
  // Counting starts again: a limit reached after this is news again (agent.limit_reached).
  if (reset.length === 0) return false;
  await forgetNotices(db, aid);
  // A reset is a change: which counters went back to 0.
  await recordChange(db, source, {
    at: now,
    action: "agent.counters_reset",
    target: `agent:${aid}`,
    after: { counters: [...counters] },
  });
  return true;
}
