// Conversation threads: listing, the history a model call is given, storing an exchange.

export type { Exchange, KeptRow, StoreGuard } from "./exchange";
export { storeExchange, storeQuery, storeValues } from "./exchange";
export type { HistoryConfig, ThreadRef } from "./history";
export { historyFromJson, historyJson, historyRead, loadHistory } from "./history";
export { callerLabel, listMessages, listThreads } from "./listing";
export * from "./schema";
