import { and, lt, ne, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { type AgentQuotaRow, limitNotices } from "@/db/schema";
import { fanOutSql } from "@/server/outbox";
import { utcDay, utcMonth } from "./periods";
import { presentQuota } from "./presentation";
import type { QuotaExceeded } from "./refusal";

/**
 * `agent.limit_reached`: sent once for the first refusal by a limit in its period at its value; a
 * raised limit or reset counters are noticed afresh. Written on the refusal path only, in one
 * statement, and not at all while no endpoint subscribes to the event.
 */

/** A refused use: the limit that refused it, and the agent's quota row as it was read then. */
export type LimitRefusal = { aid: string; exceeded: QuotaExceeded; row: AgentQuotaRow };

function periodOf(exceeded: QuotaExceeded, now: Date): string {
  if (exceeded.period === "daily") return utcDay(now);
  if (exceeded.period === "monthly") return utcMonth(now).slice(0, 7);
  return "total";
}

function eventData({ aid, exceeded, row }: LimitRefusal, now: Date) {
  return {
    aid,
    limit: exceeded.limitField,
    limit_value: exceeded.limit,
    period: exceeded.period,
    kind: exceeded.kind,
    resets_at: exceeded.resetsAt?.toISOString() ?? null,
    detail: exceeded.detail,
    quota: presentQuota(row, now),
  };
}

export async function noticeLimitsReached(
  db: Db,
  refusals: readonly LimitRefusal[],
  now: Date,
): Promise<void> {
  if (refusals.length === 0) return;
  const at = now.toISOString();
  const values = refusals.map(
    (refusal) =>
      sql`(${refusal.aid}::text, ${refusal.exceeded.limitField}::text, ${periodOf(refusal.exceeded, now)}::text,
        ${refusal.exceeded.limit}::bigint, ${JSON.stringify(eventData(refusal, now))}::json)`,
  );
  await db.execute(sql`
    WITH refused (aid, limit_field, period, limit_value, data) AS (VALUES ${sql.join(values, sql`, `)}),
    notice AS (
      INSERT INTO limit_notices (aid, limit_field, period, limit_value, created_at)
      SELECT aid, limit_field, period, limit_value, ${at}::timestamptz FROM refused
      WHERE EXISTS (SELECT 1 FROM webhook_endpoints
          WHERE enabled AND 'agent.limit_reached' = ANY(events))
        AND EXISTS (SELECT 1 FROM agents WHERE agents.aid = refused.aid)
      ON CONFLICT DO NOTHING
      RETURNING aid, limit_field, period, limit_value)
    ${fanOutSql({
      type: "agent.limit_reached",
      at,
      data: sql`refused.data`,
      from: sql`notice JOIN refused USING (aid, limit_field, period, limit_value)`,
    })}`);
}

/** Forgets an agent's notices, so the next refusal by each limit is noticed again. */
export async function forgetNotices(db: Db, aid: string): Promise<void> {
  await db.execute(sql`DELETE FROM limit_notices WHERE aid = ${aid}`);
}

/** Deletes notices of days and months long over (those of totals stay with their agent). */
export async function purgeOldNotices(db: Db, now: Date): Promise<void> {
  await db
    .delete(limitNotices)
    .where(
      and(
        lt(limitNotices.createdAt, new Date(now.getTime() - 40 * 86_400_000)),
        ne(limitNotices.period, "total"),
      ),
    );
}
