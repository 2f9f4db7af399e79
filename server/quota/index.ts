/**
 * Quotas: the counters and limits of messages, autonomous runs and tokens; import the folder, not
 * its files (docs/architecture.md). A use is reserved (checked and counted in one statement, and
 * held), then settled by the statement that stores its reply, or released at most once when the
 * reply was not delivered; the sweeps give back what a dead process left.
 */

export { withoutLaterUses } from "./counters";
export { LIMIT_COLUMNS, newQuotaRow } from "./limits";
export { type LimitRefusal, noticeLimitsReached, purgeOldNotices } from "./notices";
export {
  nextUtcDayStart,
  nextUtcMonthStart,
  periodsAt,
  secondsUntil,
  utcDay,
  utcHour,
  utcMonth,
} from "./periods";
export { presentQuota } from "./presentation";
export { quotaFilterSql, quotaUseSql } from "./quota-use";
export type { QuotaExceeded } from "./refusal";
export { findExceeded, quotaExceededError, quotaKeptChanging } from "./refusal";
export {
  releaseMessage,
  releaseRun,
  reservationLifetimeMs,
  sweepReservations,
} from "./release";
export {
  quotaRowFromJson,
  reserveMessages,
  reservePeriods,
  reserveRuns,
  whyRefused,
} from "./reserve";
export { resetQuotaCounts } from "./reset";
export * from "./schema";
export type { Accounted } from "./settle";
export { accountedPeriods, priceOf, settleMessage, settleUsage } from "./settle";
export { withTokenUsage } from "./tokens";
export * from "./view";
