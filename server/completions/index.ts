// POST /v1/chat/completions: an agent asked as an OpenAI-compatible model, through chat's own path.

export {
  COMPLETIONS_THREAD,
  type CompletionEvent,
  type CompletionResult,
  createCompletion,
  streamCompletion,
} from "./completions";
export * from "./schema";
