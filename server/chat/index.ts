// GET /{aid}/chat: opening a chat in one statement, the model call, the reply, its outcome.

export { type Ask, ask, askStreaming, checkChat, sendMessage, streamMessage } from "./chat";
export type { Opening } from "./opening";
export { openChat, openingQuery, openingValues } from "./opening";
export { purgeOldChatWindows, rateLimitHeaders } from "./rate-limit";
export * from "./schema";
