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
 * Chats' message uses (`uses`: rows `n`, `aid`, `held_tokens`) as WITH clauses: each agent counts
 * those it has room for, in order; `opened` has each counted chat's `reservation_id`, its agent's
 * row as JSON (`quota_json`) and `uses_after`. Several lock their rows in the agents' order first.
 */
export function reserveMessages(
  db: Db,
  {
    uses,
    lone,
    day,
    month,
    now,
  }: { uses: SQL; lone: boolean; day: unknown; month: unknown; now: unknown },
) {
  const clause = (name: string, query: SQL) => db.$with(name, {}).as(query);
  const q = agentQuotas;
  const periods = { day, month, now };
  // Ids drawn before the insert, so that each is known with its chat.
  const opened = clause(
    "opened",
    sql`SELECT r.n, r.aid, r.held_tokens, c.quota_json, c.uses - r.rank AS uses_after,
        nextval('chat_reservations_id_seq') AS reservation_id
      FROM counted AS c JOIN ranked AS r ON r.aid = c.aid AND r.rank <= c.uses`,
  );
  const reserved = clause(
    "reserved",
    sql`INSERT INTO ${chatReservations} (id, aid, day, month, reserved_at, held_tokens)
      OVERRIDING SYSTEM VALUE
      SELECT reservation_id, aid, ${day}::date, ${month}::date, ${now}::timestamptz, held_tokens
      FROM opened RETURNING id`,
  );
  if (lone) {
    const hold = sql`(SELECT held_tokens FROM ranked)`;
    const counted = countUse(db, "message", sql`${q.aid} = (SELECT aid FROM ranked)`, {
      ...periods,
      hold,
    }).returning({
      aid: q.aid,
      quota: sql<unknown>`to_json(${q})`.as("quota_json"),
      uses: sql<number>`1`.as("uses"),
    });
    return [
      clause("ranked", sql`SELECT n, aid, held_tokens, 1 AS rank FROM ${uses}`),
      db.$with("counted").as(counted),
      opened,
      reserved,
    ];
  }
  // Read as locked, so as another statement left it. A chat is counted if every limit has room
  // for it and its agent's chats before it: the longest run, as the room only shrinks along it.
  const fit = sql`SELECT ${q.aid}, max(r.rank) AS uses, max(r.held_through) AS held_tokens
    FROM locked AS ${q} JOIN ranked AS r ON r.aid = ${q.aid}
    WHERE ${roomFor("message", { day, month, uses: sql`r.rank`, hold: sql`r.held_through` })}
    GROUP BY ${q.aid}`;
  const counted = countUse(
    db,
    "message",
    sql`${q.aid} = to_count.aid`,
    { ...periods, hold: sql`to_count.held_tokens`, uses: sql`to_count.uses` },
    sql`to_count`,
  ).returning({
    aid: q.aid,
    quota: sql<unknown>`to_json(${q})`.as("quota_json"),
    uses: sql<number>`to_count.uses`.as("uses"),
  });
  return [
    clause(
      "ranked",
      sql`SELECT n, aid, held_tokens, row_number() OVER w AS rank,
          (sum(held_tokens) OVER w)::bigint AS held_through FROM ${uses}
        WINDOW w AS (PARTITION BY aid ORDER BY n)`,
    ),
    clause(
      "locked",
      sql`SELECT * FROM ${q} WHERE ${q.aid} IN (SELECT aid FROM ranked)
        ORDER BY ${q.aid} FOR NO KEY UPDATE`,
    ),
    clause("to_count", fit),
    db.$with("counted").as(counted),
    opened,
    reserved,
  ];
}

/** The quota row as `reserveMessages` returns it (`counted.quota_json`): null when none was counted. */
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

/** Counts `uses` (one if not given) of `kind` holding `hold` tokens where every limit has room. */
function countUse(
  db: Db,
  kind: QuotaKind,
  which: SQL,
  {
    day,
    month,
    now,
    hold,
    uses,
  }: { day: unknown; month: unknown; now: unknown; hold: SQL; uses?: SQL },
  from?: SQL,
) {
  const set: Record<string, unknown> = {
    [LAST_AT[kind]]: sql`${now}`,
    tokenHolds: sql`${agentQuotas.tokenHolds} + ${hold}`,
  };
  for (const counter of COUNTERS[kind]) {
    set[counter.count] = sql`${effectiveCount(counter, day, month)} + ${uses ?? sql`1`}`;
    if (counter.periodColumn) set[counter.periodColumn] = sql`${periodValue(counter, day, month)}`;
  }
  const update = db.update(agentQuotas).set(set);
  // As the plain update's type: its returning() is only given explicit fields, mapped alike.
  return (from ? (update.from(from) as unknown as typeof update) : update).where(
    and(which, roomFor(kind, { day, month, uses, hold })),
  );
}

/** Every limit of `kind` has room for `uses` more (one if not given), holding `hold` tokens. */
function roomFor(
  kind: QuotaKind,
  { day, month, uses, hold }: { day: unknown; month: unknown; uses?: SQL; hold: SQL },
): SQL | undefined {
  const withinLimits = COUNTERS[kind].map((counter) => {
    const count = effectiveCount(counter, day, month);
    const limit = agentQuotas[counter.limit];
    return or(isNull(limit), uses ? sql`${count} + ${uses} <= ${limit}` : lt(count, limit));
  });
  return and(...withinLimits, withinTokenBudgets(day, month, hold));
}
