import { count, desc, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db/client";
import {
  agentQuotaView,
  agents,
  autonomousRuns,
  DEPLOYMENT_STATUSES,
  deployments,
  usageHourly,
} from "@/db/schema";
import type { Clock } from "@/server/kit/clock";
import { quotaFilterSql, utcDay, utcMonth } from "@/server/quota";
import { presentRun, runSchema } from "@/server/runs";

export const overviewSchema = z.object({
  agents: z.object({ total: z.int(), autonomous: z.int() }),
  /**
   * Chat replies delivered today and this month (UTC), from the usage record as the usage charts
   * read it, so that resetting counters does not change it.
   */
  messages: z.object({ today: z.int(), this_month: z.int() }),
  /** The agents listing's `quota=near`. */
  agents_near_limit: z.int(),
  /** The agents listing's `quota=over`. */
  agents_over_limit: z.int(),
  recent_runs: z.array(runSchema),
  deployments_by_status: z.record(z.string(), z.int()),
});

export async function overview({
  db,
  clock,
}: {
  db: Db;
  clock: Clock;
}): Promise<z.output<typeof overviewSchema>> {
  const now = clock.now();
  const day = utcDay(now);
  const month = utcMonth(now);

  const [agentCounts] = await db
    .select({
      total: count(),
      autonomous: sql<number>`count(*) FILTER (WHERE ${agents.autonomousEnabled})`.mapWith(Number),
    })
    .from(agents);
  // Messages from the usage record, the one the usage charts read: the quota counters would
  // disagree with them after a counter reset (which puts counters, not history, back to 0).
  const dayStart = `${day}T00:00:00Z`;
  const [delivered] = await db
    .select({
      today:
        sql<number>`coalesce(sum(${usageHourly.messages}) FILTER (WHERE ${usageHourly.hour} >= ${dayStart}::timestamptz), 0)`.mapWith(
          Number,
        ),
      thisMonth: sql<number>`coalesce(sum(${usageHourly.messages}), 0)`.mapWith(Number),
    })
    .from(usageHourly)
    .where(sql`${usageHourly.hour} >= ${`${month}T00:00:00Z`}::timestamptz`);
  const [usage] = await db
    .select({
      nearLimit: sql<number>`count(*) FILTER (WHERE ${quotaFilterSql("near", day, month)})`.mapWith(
        Number,
      ),
      overLimit: sql<number>`count(*) FILTER (WHERE ${quotaFilterSql("over", day, month)})`.mapWith(
        Number,
      ),
    })
    .from(agentQuotaView);
  const recent = await db.select().from(autonomousRuns).orderBy(desc(autonomousRuns.id)).limit(8);
  const byStatus = await db
    .select({ status: deployments.status, n: count() })
    .from(deployments)
    .groupBy(deployments.status);

  const deploymentsByStatus = Object.fromEntries(DEPLOYMENT_STATUSES.map((status) => [status, 0]));
  for (const { status, n } of byStatus) deploymentsByStatus[status] = n;
  return {
    agents: { total: agentCounts?.total ?? 0, autonomous: agentCounts?.autonomous ?? 0 },
    messages: { today: delivered?.today ?? 0, this_month: delivered?.thisMonth ?? 0 },
    agents_near_limit: usage?.nearLimit ?? 0,
    agents_over_limit: usage?.overLimit ?? 0,
    recent_runs: recent.map(presentRun),
    deployments_by_status: deploymentsByStatus,
  };
}
