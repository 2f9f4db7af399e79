/** A tool call as the model asks for it: `arguments` is the JSON text it wrote. */
export type ToolCallRequest = { id: string; name: string; arguments: string };

/** One turn in OpenAI's chat form, so that a provider sends it as it is. */
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

/** Sampling settings a caller may choose (POST /v1/chat/completions), in OpenAI's field names. */
export type Sampling = {
  topP?: number;
  stop?: string[];
  seed?: number;
  frequencyPenalty?: number;
  presencePenalty?: number;
  responseFormat?: { type: "text" | "json_object" } | { type: "json_schema"; json_schema: unknown };
};

/** Why a model stopped writing, in OpenAI's words (tool calls are the service's own business). */
export type FinishReason = "stop" | "length" | "content_filter";

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
  tools?: ModelTool[];
  /** `none`: tools are offered for the history's sake, but the model must answer in text. */
  toolChoice?: "none";
  sampling?: Sampling;
  /** Aborted on timeout or when the client goes away; providers must stop promptly. */
  signal: AbortSignal;
  /** The model turn's trace context (`traceparent`), sent with the request when tracing is on. */
  traceHeaders?: Record<string, string>;
};

export type ProviderUsage = { inputTokens: number; outputTokens: number };

/** Which of an agent's model endpoints answered, and with which model. */
export type AnsweredBy = { endpoint: string; model: string };

/**
 * One network read: its text (maybe empty); usage, tool calls, finish reason in a last chunk;
 * `answeredBy` in the first, from a provider that chose among endpoints.
 */
export type ModelChunk = {
  text: string;
  answeredBy?: AnsweredBy;
  usage?: ProviderUsage;
  toolCalls?: ToolCallRequest[];
  finishReason?: FinishReason;
};

/** A model provider; failures are thrown as they come (server/model-call classifies them). */
export type ModelProvider = {
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
