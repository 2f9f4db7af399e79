import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, streamText } from "ai";
import type { LlmConfig } from "@/server/config";
import type { ModelProvider, ModelRequest } from "./provider";

/**
 * Any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, …) through the Vercel AI SDK, which
 * speaks /v1/chat/completions and retries 429 and 5xx answers with exponential backoff
 * (honouring Retry-After), `maxRetries` times.
 */
export function openAiCompatibleProvider(config: LlmConfig & { baseUrl: string }): ModelProvider {
  const endpoint = createOpenAICompatible({
    name: "llm",
    baseURL: config.baseUrl,
    apiKey: config.apiKey,
  });

  const callSettings = (request: ModelRequest) => ({
    model: endpoint.chatModel(request.model),
    system: request.system,
    messages: request.messages,
    temperature: request.temperature,
    maxOutputTokens: request.maxOutputTokens,
    abortSignal: request.signal,
    maxRetries: config.maxRetries,
  });

  return {
    name: "openai-compatible",
    async generate(request) {
      const result = await generateText(callSettings(request));
      return result.text;
    },
    async *stream(request) {
      // Errors arrive as stream parts; throwing them lets the chat engine handle every failure alike.
      const result = streamText({ ...callSettings(request), onError: () => {} });
      for await (const part of result.fullStream) {
        if (part.type === "text-delta") yield part.text;
        else if (part.type === "error") throw part.error;
        else if (part.type === "abort") request.signal.throwIfAborted();
      }
    },
  };
}
