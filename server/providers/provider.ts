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
  /** A caller's own instructions (POST /v1/chat/completions), after the agent's system prompt. */
  | { role: "system"; content: string }
  | {
      role: "assistant";
      content: string | null;
      tool_calls: { id: string; type: "function"; function: { name: string; arguments: string } }[];
    }
  | { role: "tool"; tool_call_id: string; content: string };

/**
 * Sampling settings a caller may choose for one call (POST /v1/chat/completions), sent to the
 * provider as OpenAI's fields of the same names; absent ones are left to the provider.
 */
export type Sampling = {
  topP?: number;
  stop?: string[];
  seed?: number;
  user?: string;
  frequencyPenalty?: number;
  presencePenalty?: number;
  responseFormat?: { type: "text" | "json_object" } | { type: "json_schema"; json_schema: unknown };
};

/** Why a model stopped writing, in OpenAI's words (tool calls are the service's own business). */
export type FinishReason = "stop" | "length" | "content_filter";

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
  /** A caller's sampling settings, when it chose any. */
  sampling?: Sampling;
  /** Aborted on timeout or when the client goes away; providers must stop promptly. */
  signal: AbortSignal;
};

/** Tokens as the provider counted them, when it says. */
export type ProviderUsage = { inputTokens: number; outputTokens: number };

/**
 * What the provider has for one network read: its text (maybe empty); usage, the tool calls
 * the model asked for and why it stopped, in a last chunk.
 */
export type ModelChunk = {
  text: string;
  usage?: ProviderUsage;
  toolCalls?: ToolCallRequest[];
  finishReason?: FinishReason;
};

/**
 * What a model call needs of a model: a whole reply, or the reply as it is produced.
 * Failures are thrown as they come (server/model-call classifies them).
 */
export type ModelProvider = {
  /** Shown by /health and the dashboard. */
  name: "echo" | "openai-compatible";
  /**
   * The model that answers whatever model a request names, when the provider has only one
   * (the built-in echo): replies, prices and the request log name it rather than the agent's
   * model, which never answered. Absent: the request's model answers.
   */
  model?: string;
  generate(request: ModelRequest): Promise<Omit<ModelChunk, "text"> & { text: string }>;
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
