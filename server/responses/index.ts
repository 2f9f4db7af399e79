// POST /v1/responses and its reads: agents through OpenAI's Responses API.

export {
  createResponse,
  deleteResponse,
  getResponse,
  listInputItems,
  RESPONSES_THREAD,
  type ResponseEvent,
  type ResponseResult,
  streamResponse,
} from "./responses";
export * from "./schema";
