import type { LlmConfig } from "@/server/config";
import { echoProvider } from "./echo";
import { openAiCompatibleProvider } from "./openai-compatible";

/** One turn of the conversation as the model sees it. */
export type ChatTurn = { role: "user" | "assistant"; content: string };

export type ModelRequest = {
  model: string;
  system: string;
  messages: ChatTurn[];
  temperature: number | undefined;
  maxOutputTokens: number;
  /** Aborted on timeout or when the client goes away; providers must stop promptly. */
  signal: AbortSignal;
};

/**
 * What the chat engine needs of a model: a whole reply, or the reply as it is produced.
 * Failures are thrown as they come (the chat engine classifies them).
 */
export type ModelProvider = {
  /** Shown by /health and the dashboard. */
  name: "echo" | "openai-compatible";
  generate(request: ModelRequest): Promise<string>;
  stream(request: ModelRequest): AsyncIterable<string>;
};

/** The provider configuration chooses: an OpenAI-compatible endpoint, else the built-in echo. */
export function createProvider(config: LlmConfig): ModelProvider {
  return config.baseUrl
    ? openAiCompatibleProvider({ ...config, baseUrl: config.baseUrl })
    : echoProvider;
}

/** The name of the provider `createProvider` picks, without making one. */
export function providerName(config: LlmConfig): ModelProvider["name"] {
  return config.baseUrl ? "openai-compatible" : "echo";
}
