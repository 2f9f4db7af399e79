/**
 * Quotas: the counters and limits of messages, autonomous runs and tokens. This index is the
 * folder's public surface: import the folder, not its files (docs/architecture.md).
 *
 * The life of a use, which chat, autonomous runs and any other entry point go through:
 * - reserve: checked against every limit and counted in one statement, and held. A chat's
 *   opening statement embeds `reserveMessage` (the use recorded in `chat_reservations`); the
 *   scheduler's claim runs `reserveRuns` (the use held by the run). `whyRefused` names the
 *   limit of one that counted nothing, `quotaExceededError` makes it the 429.
 * - settle: the statement that stores the reply embeds it: `settleMessage`, the chat's
 *   reservation deleted as its guard, and `settleUsage`, the reply's tokens counted.
 * - release: given back when the reply was not delivered, at most once: `releaseMessage`,
 *   `releaseRun`.
 * - sweep: what a dead process left, given back: `sweepReservations` (runs: their sweep).
 */

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
export { reserveMessage, reservePeriods, reserveRuns, whyRefused } from "./reserve";
export { resetQuotaCounts } from "./reset";
export * from "./schema";
export type { Accounted } from "./settle";
export { accountedPeriods, settleMessage, settleUsage } from "./settle";
export { withTokenUsage } from "./tokens";
export * from "./view";
