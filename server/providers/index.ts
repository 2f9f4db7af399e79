// Model providers: an OpenAI-compatible server, or the built-in echo.

export { createProvider, providerName } from "./create";
export { MAX_REPORTED_TOKENS, openAiCompatibleProvider } from "./openai-compatible";
export type {
  AnsweredBy,
  ChatTurn,
  FinishReason,
  ModelChunk,
  ModelProvider,
  ModelRequest,
  ModelTool,
  ProviderUsage,
  Sampling,
  ToolCallRequest,
} from "./provider";
export {
  isConnectionFailure,
  isProviderHttpError,
  isProviderReplyError,
  isRetryable,
  retryDelay,
} from "./retry";
