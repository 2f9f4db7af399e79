import type { LlmConfig } from "@/server/config";
import { echoProvider } from "./echo";
import { openAiCompatibleProvider } from "./openai-compatible";

/** A tool call as the model asks for it: `arguments` is the JSON text it wrote. */
export type ToolCallRequest = { id: string; name: string; arguments: string };

/**
 * One turn of the conversation as the model sees it, in the OpenAI chat form (so a provider
 * sends it as it is): a question, a reply, a reply that asks for tools, a tool's result.
 */
export type ChatTurn =
  | { role: "user" | "assistant"; content: string }
  | {
      role: "assistant";
      content: string | null;
      tool_calls: { id: string; type: "function"; function: { name: string; arguments: string } }[];
    }
  | { role: "tool"; tool_call_id: string; content: string };

/** A tool offered to the model (OpenAI's function tool; `parameters` is a JSON Schema). */
export type ModelTool = {
  type: "function";
  function: { name: string; description?: string; parameters: Record<string, unknown> };
};

export type ModelRequest = {
  model: string;
  system: string;
  messages: ChatTurn[];
  temperature: number | undefined;
  maxOutputTokens: number;
  /** Tools the model may ask for; absent for an agent without tools (the request is as before). */
  tools?: ModelTool[];
  /** `none`: tools are offered for the history's sake, but the model must answer in text. */
  toolChoice?: "none";
  /** Aborted on timeout or when the client goes away; providers must stop promptly. */
  signal: AbortSignal;
};

/** Tokens as the provider counted them, when it says. */
export type ProviderUsage = { inputTokens: number; outputTokens: number };

/**
 * What the provider has for one network read: its text (maybe empty); usage, and the tool calls
 * the model asked for, in a last chunk.
 */
export type ModelChunk = { text: string; usage?: ProviderUsage; toolCalls?: ToolCallRequest[] };

/**
 * What a model call needs of a model: a whole reply, or the reply as it is produced.
 * Failures are thrown as they come (server/model-call classifies them).
 */
export type ModelProvider = {
  /** Shown by /health and the dashboard. */
  name: "echo" | "openai-compatible";
  generate(
    request: ModelRequest,
  ): Promise<{ text: string; usage?: ProviderUsage; toolCalls?: ToolCallRequest[] }>;
  /** One chunk per network read, so a relay can forward each read in one event. */
  stream(request: ModelRequest): AsyncIterable<ModelChunk>;
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
