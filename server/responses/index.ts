// POST /v1/responses and its reads: agents through OpenAI's Responses API.

export {
  backgroundResponsesDrained,
  beginBackgroundChat,
  beginBackgroundResponse,
  type NumberedEvent,
} from "./background";
export { followResponse } from "./follow";
export {
  askToCancel,
  endResponse,
  eventsAfter,
  failEveryResponseInProgress,
  failStalledResponses,
  purgeOldResponseEvents,
  recordEvents,
} from "./lifecycle";
export { cancelResponse, deleteResponse, getResponse, listInputItems } from "./reads";
export {
  createResponse,
  RESPONSES_THREAD,
  type ResponseEvent,
  type ResponseResult,
  streamResponse,
} from "./responses";
export * from "./schema";
