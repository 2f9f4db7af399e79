/**
 * Model providers: an OpenAI-compatible endpoint (undici and eventsource-parser), or the built-in
 * echo. This index is the folder's public surface: import the folder, not its files
 * (docs/architecture.md).
 */

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
