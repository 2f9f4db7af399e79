// POST /v1/responses and its reads: agents through OpenAI's Responses API.

export {
  backgroundResponsesDrained,
  beginBackgroundChat,
  beginBackgroundResponse,
  type NumberedEvent,
} from "./background";
export { followResponse } from "./follow";
export {
  failEveryResponseInProgress,
  failStalledResponses,
  purgeOldResponseEvents,
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
