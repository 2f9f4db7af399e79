import { type SQL, sql } from "drizzle-orm";
import { agentQuotaView } from "@/db/schema";

// Quota use in SQL, for the agents listing and the overview: the same rule as `quotaUse` (view.ts).

/** Where the quota filter draws its lines: `near` from 80% of a limit, `over` at a limit. */
const QUOTA_NEAR = 0.8;

/** Quota use in ten-thousandths (an integer a cursor holds exactly), by `quotaUse`'s rule. */
export function quotaUseSql(day: string, month: string): SQL<number> {
  const q = agentQuotaView;
  const share = (counter: SQL, limit: SQL) =>
    sql`CASE WHEN ${limit} IS NULL THEN 0 WHEN ${counter} >= ${limit} THEN 10000 ELSE (${counter}::bigint * 10000 / ${limit})::int END`;
  // A daily or monthly count of an earlier period counts 0, as everywhere (counters.ts).
  const inPeriod = (counter: SQL, stored: SQL, current: string) =>
    sql`(CASE WHEN ${stored} = ${current} THEN ${counter} ELSE 0 END)`;
  return sql<number>`GREATEST(${sql.join(
    [
      share(sql`${q.messageCountTotal}`, sql`${q.messageLimitTotal}`),
      share(
        inPeriod(sql`${q.messageCountMonthly}`, sql`${q.messageMonth}`, month),
        sql`${q.messageLimitMonthly}`,
      ),
      share(
        inPeriod(sql`${q.messageCountDaily}`, sql`${q.messageDay}`, day),
        sql`${q.messageLimitDaily}`,
      ),
      share(sql`${q.autonomousCountTotal}`, sql`${q.autonomousLimitTotal}`),
      share(
        inPeriod(sql`${q.autonomousCountMonthly}`, sql`${q.autonomousMonth}`, month),
        sql`${q.autonomousLimitMonthly}`,
      ),
      // Token budgets: input + output tokens (tokens.ts).
      share(sql`(${q.inputTokensTotal} + ${q.outputTokensTotal})`, sql`${q.tokenLimitTotal}`),
      share(
        inPeriod(
          sql`(${q.inputTokensMonthly} + ${q.outputTokensMonthly})`,
          sql`${q.tokenMonth}`,
          month,
        ),
        sql`${q.tokenLimitMonthly}`,
      ),
      share(
        inPeriod(sql`(${q.inputTokensDaily} + ${q.outputTokensDaily})`, sql`${q.tokenDay}`, day),
        sql`${q.tokenLimitDaily}`,
      ),
    ],
    sql`, `,
  )})`;
}

export function quotaFilterSql(filter: "near" | "over", day: string, month: string): SQL {
  return sql`${quotaUseSql(day, month)} >= ${filter === "over" ? 10000 : QUOTA_NEAR * 10000}`;
}
