import { and, inArray, isNull, lt, or, type SQL, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { rowFromJson } from "@/db/drizzle-internals";
import {
  type AgentQuotaCountsRow,
  type AgentQuotaRow,
  agentQuotas,
  agentQuotaView,
  chatReservations,
} from "@/db/schema";
import type { Clock } from "@/server/kit/clock";
import { COUNTERS, effectiveCount, LAST_AT, periodValue, type QuotaKind } from "./counters";
import { type LimitRefusal, noticeLimitsReached } from "./notices";
import { periodsAt } from "./periods";
import { findExceeded, type QuotaExceeded } from "./refusal";
import { withinTokenBudgets } from "./tokens";

/**
 * Reserve: one use checked against every limit and counted, held until settled (settle.ts) or
 * released (release.ts). The check and the count are one `UPDATE … WHERE <every limit has room>
 * RETURNING`: PostgreSQL re-checks the WHERE clause against the newest row version once a
 * concurrent update commits, so no number of concurrent callers can pass a limit.
 */

export function reservePeriods(now: Date) {
  const { day, month } = periodsAt(now);
  return { day, month, now: now.toISOString() };
}

/**
 * Chats' message uses, as WITH clauses: `counted` counts one for each agent of `toCount` (`aid`,
 * `held_tokens`; a value if `lone`, as a join is checked again whole after a wait), holding those
 * tokens where every limit has room, returning its quota row as JSON; `reserved` records each.
 */
export function reserveMessage(
  db: Db,
  {
    toCount,
    lone,
    day,
    month,
    now,
  }: { toCount: SQL; lone: boolean; day: unknown; month: unknown; now: unknown },
) {
  const which = lone
    ? sql`${agentQuotas.aid} = (SELECT aid FROM ${toCount})`
    : sql`${agentQuotas.aid} = ${toCount}.aid`;
  const hold = lone ? sql`(SELECT held_tokens FROM ${toCount})` : sql`${toCount}.held_tokens`;
  const counted = db.$with("counted").as(
    countUse(db, "message", which, { day, month, now, hold }, lone ? undefined : toCount).returning(
      {
        aid: agentQuotas.aid,
        quota: sql<unknown>`to_json(${agentQuotas})`.as("quota_json"),
        held: sql<number>`${hold}`.as("held_tokens"),
      },
    ),
  );
  const reserved = db
    .$with("reserved", {
      id: sql<number>`reservation_id`.mapWith(Number).as("reservation_id"),
    })
    .as(
      sql`INSERT INTO ${chatReservations} (aid, day, month, reserved_at, held_tokens)
        SELECT c.aid, ${day}::date, ${month}::date, ${now}::timestamptz, c.held_tokens
        FROM ${counted} AS c
        RETURNING id AS reservation_id, aid`,
    );
  return { counted, reserved };
}

/** The quota row as `reserveMessage` returns it (`counted.quota`): null when none was counted. */
export function quotaRowFromJson(json: unknown): AgentQuotaCountsRow | null {
  return rowFromJson(agentQuotas, json);
}

/** A run holds one token against the budgets: its input is read only once it has started. */
const RUN_HOLD = sql`1`;

/** A run's use as reserved: the month it counts in (kept on the run), or why it was refused. */
export type RunReserve = { month: string; refused?: undefined } | { refused: string };

/** One autonomous use for each of `aids` in one UPDATE, in the claim's transaction. */
export async function reserveRuns(
  { db, clock }: { db: Db; clock: Clock },
  aids: readonly string[],
): Promise<Map<string, RunReserve>> {
  const results = new Map<string, RunReserve>();
  let pending = [...aids];
  // A refusal that no limit explains (a use was given back in between) is tried again.
  for (let attempt = 0; attempt < 3 && pending.length > 0; attempt++) {
    const now = clock.now();
    const { day, month } = reservePeriods(now);
    const counted = await countUse(db, "autonomous", inArray(agentQuotas.aid, pending), {
      day,
      month,
      now: now.toISOString(),
      hold: RUN_HOLD,
    }).returning({ aid: agentQuotas.aid });
    for (const row of counted) results.set(row.aid, { month });
    const refused = pending.filter((aid) => !results.has(aid));
    if (refused.length === 0) return results;

    const why = await whyRefused(db, refused, "autonomous", now);
    pending = [];
    const limited: LimitRefusal[] = [];
    for (const aid of refused) {
      const refusal = why.get(aid);
      if (!refusal) pending.push(aid);
      else if (refusal.notFound)
        results.set(aid, { refused: `Agent '${aid}' has no quota record.` });
      else {
        results.set(aid, { refused: refusal.exceeded.detail });
        limited.push({ aid, exceeded: refusal.exceeded, row: refusal.row });
      }
    }
    await noticeLimitsReached(db, limited, now);
  }
  if (pending.length > 0)
    throw new Error(`Quotas of ${pending.length} agents kept changing; the reserve gave up`);
  return results;
}

/** Why a reserve counted nothing: no quota row, or the limit it hit (and the row that says so). */
export type Refused =
  | { exceeded: QuotaExceeded; row: AgentQuotaRow; notFound?: undefined }
  | { notFound: true; exceeded?: undefined };

/**
 * Why a reserve counted nothing for each of `aids`, from their rows as they are now; undefined
 * when no limit explains it (a use was given back in between): reserve again. `hold` is the
 * tokens the refused start would have held.
 */
export async function whyRefused(
  db: Db,
  aids: readonly string[],
  kind: QuotaKind,
  now: Date,
  hold = 1,
): Promise<Map<string, Refused | undefined>> {
  const current = await db.select().from(agentQuotaView).where(inArray(agentQuotaView.aid, aids));
  const byAid = new Map(current.map((row) => [row.aid, row]));
  return new Map(
    aids.map((aid): [string, Refused | undefined] => {
      const row = byAid.get(aid);
      if (!row) return [aid, { notFound: true }];
      const exceeded = findExceeded(row, kind, now, hold);
      return [aid, exceeded && { exceeded, row }];
    }),
  );
}

/** Counts one use of `kind` holding `hold` tokens where every limit has room; returns those rows. */
function countUse(
  db: Db,
  kind: QuotaKind,
  which: SQL,
  { day, month, now, hold }: { day: unknown; month: unknown; now: unknown; hold: SQL },
  from?: SQL,
) {
  const counters = COUNTERS[kind];
  const set: Record<string, unknown> = {
    [LAST_AT[kind]]: sql`${now}`,
    tokenHolds: sql`${agentQuotas.tokenHolds} + ${hold}`,
  };
  for (const counter of counters) {
    set[counter.count] = sql`${effectiveCount(counter, day, month)} + 1`;
    if (counter.periodColumn) set[counter.periodColumn] = sql`${periodValue(counter, day, month)}`;
  }
  const withinLimits = counters.map((counter) =>
    or(
      isNull(agentQuotas[counter.limit]),
      lt(effectiveCount(counter, day, month), agentQuotas[counter.limit]),
    ),
  );
  const update = db.update(agentQuotas).set(set);
  // As the plain update's type: its returning() is only given explicit fields, mapped alike.
  return (from ? (update.from(from) as unknown as typeof update) : update).where(
    and(which, ...withinLimits, withinTokenBudgets(day, month, hold)),
  );
}
