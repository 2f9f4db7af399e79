/**
 * The attribute names of OpenTelemetry's GenAI semantic conventions the service's spans carry,
 * in one place: the conventions are still "development", and a rename is one change here.
 * https://opentelemetry.io/docs/specs/semconv/gen-ai/
 */
export const GEN_AI = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  finishReasons: "gen_ai.response.finish_reasons",
  agentId: "gen_ai.agent.id",
  agentName: "gen_ai.agent.name",
  conversationId: "gen_ai.conversation.id",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
} as const;

/** `gen_ai.operation.name` values. */
export const GEN_AI_OPERATIONS = {
  chat: "chat",
  invokeAgent: "invoke_agent",
  executeTool: "execute_tool",
} as const;
