import type { LlmConfig } from "@/server/frame/config";
import { echoProvider } from "./echo";
import { openAiCompatibleProvider } from "./openai-compatible";
import type { ModelProvider } from "./provider";

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
