// Model providers: an OpenAI-compatible server, or the built-in echo.

export { createProvider, providerName } from "./create";
export { MAX_REPORTED_TOKENS } from "./openai-compatible";
export type {
  ChatTurn,
  FinishReason,
  ModelProvider,
  ModelRequest,
  ModelTool,
  ProviderUsage,
  Sampling,
  ToolCallRequest,
} from "./provider";
export { isConnectionFailure, isProviderHttpError, isProviderReplyError } from "./retry";
