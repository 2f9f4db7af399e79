/**
 * GET /{aid}/chat: opening a chat (access, rate limit, one message use, history, in one
 * statement), the model call, the reply as text, JSON or events, and its outcome. This index is
 * the folder's public surface: import the folder, not its files (docs/architecture.md).
 */

export { checkChat, sendMessage, streamMessage } from "./chat";
export { openChat } from "./opening";
export { rateLimitHeaders } from "./rate-limit";
export { purgeOldChatWindows, reservationLifetimeMs, sweepReservations } from "./reservations";
export * from "./schema";
