/**
 * POST /v1/chat/completions: an agent asked as an OpenAI-compatible model, through the chat's
 * own path. This index is the folder's public surface: import the folder, not its files
 * (docs/architecture.md).
 */

export {
  COMPLETIONS_THREAD,
  type CompletionEvent,
  type CompletionResult,
  createCompletion,
  streamCompletion,
} from "./completions";
export * from "./schema";
