/**
 * GET /{aid}/chat: opening a chat (access, rate limit, one message use, history, in one
 * statement), the model call, the reply as text, JSON or events, and its outcome. This index is
 * the folder's public surface: import the folder, not its files (docs/architecture.md).
 */

export { type Ask, ask, askStreaming, checkChat, sendMessage, streamMessage } from "./chat";
export type { Opening } from "./opening";
export { openChat, openingQuery, openingValues } from "./opening";
export { purgeOldChatWindows, rateLimitHeaders } from "./rate-limit";
export * from "./schema";
