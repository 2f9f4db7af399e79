// GET /{aid}/chat: opening a chat in one statement, the model call, the reply, its outcome.

export type { OpeningKind } from "./admission-statement";
export { cancelChat } from "./cancel";
export {
  type Ask,
  ask,
  askStreaming,
  type ChatContext,
  checkChat,
  sendMessage,
  streamMessage,
} from "./chat";
export type { Opening } from "./opening";
export { openChat } from "./opening";
export { openingQuery, openingValues } from "./opening-statement";
export { resumeChat, type TurnOutcome } from "./paused";
export { purgeOldChatWindows, rateLimitHeaders } from "./rate-limit";
export { replyText, waitingSentence } from "./reply";
export { type ChatFrame, parseEventId, resumeChatStream, startChatStream } from "./resume";
export * from "./schema";
