/**
 * Quotas: the counters and limits of messages, autonomous runs and tokens, checked and counted in
 * the statements that open chats and runs, given back when a reply is not delivered, and
 * presented with their reset times. This index is the folder's public surface: import the folder,
 * not its files (docs/architecture.md).
 */

export {
  nextUtcDayStart,
  nextUtcMonthStart,
  secondsUntil,
  utcDay,
  utcHour,
  utcMonth,
} from "./periods";
export type { ConsumeResult, QuotaExceeded } from "./quota";
export {
  autonomousReservation,
  consumePeriods,
  consumeQuota,
  consumeQuotaOfMany,
  consumeUpdate,
  findExceeded,
  LIMIT_COLUMNS,
  newQuotaRow,
  presentQuota,
  quotaKeptChanging,
  refundQuota,
  refundReleasedMessageUses,
  resetQuotaCounts,
} from "./quota";
export * from "./schema";
export type { Accounted } from "./tokens";
export { accountedPeriods, accountUsage, priceClause } from "./tokens";
