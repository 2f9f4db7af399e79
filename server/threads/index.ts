/**
 * Conversation threads (GET /agents/{aid}/threads and their messages): listing them, the history
 * a model call is given, and storing an exchange (question, reply, tool calls, tokens) in one
 * statement. This index is the folder's public surface: import the folder, not its files
 * (docs/architecture.md).
 */

export type { StoreGuard } from "./exchange";
export { storeExchange, storeQuery, storeValues } from "./exchange";
export type { HistoryConfig, ThreadRef } from "./history";
export { historyFromJson, historyJson, loadHistory } from "./history";
export { callerLabel, listMessages, listThreads } from "./listing";
export * from "./schema";
