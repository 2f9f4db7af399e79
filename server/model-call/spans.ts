import {
  type Context,
  failSpan,
  GEN_AI,
  GEN_AI_OPERATIONS,
  SpanKind,
  startSpan,
  traceHeaders,
} from "@/server/observability";
import type { FinishReason, ModelRequest } from "@/server/providers";
import type { Usage } from "./schema";

/**
 * A model turn's span (GenAI conventions: `chat {model}`), child of the call's context, its
 * `traceparent` sent with the request to the provider. With tracing off, the request as it is.
 */
export function modelTurnSpan(
  parent: Context | undefined,
  request: ModelRequest,
  provider: string,
): {
  request: ModelRequest;
  end(
    turn: { usage: Usage; finishReason: FinishReason; model?: string } | { error: unknown },
  ): void;
} {
  const started =
    parent &&
    startSpan(
      `${GEN_AI_OPERATIONS.chat} ${request.model}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          [GEN_AI.operationName]: GEN_AI_OPERATIONS.chat,
          [GEN_AI.providerName]: provider,
          [GEN_AI.requestModel]: request.model,
        },
      },
      parent,
    );
  if (!started) return { request, end: () => {} };
  const headers = traceHeaders(started.context);
  return {
    request: headers ? { ...request, traceHeaders: headers } : request,
    end(turn) {
      if ("error" in turn) failSpan(started.span, turn.error);
      else
        started.span.setAttributes({
          [GEN_AI.inputTokens]: turn.usage.input_tokens,
          [GEN_AI.outputTokens]: turn.usage.output_tokens,
          [GEN_AI.finishReasons]: [turn.finishReason],
          ...(turn.model ? { [GEN_AI.responseModel]: turn.model } : {}),
        });
      started.span.end();
    },
  };
}

/** A tool call's span (`execute_tool {name}`), in whose context the MCP request is made. */
export function toolSpanOptions(name: string, id: string) {
  return {
    attributes: {
      [GEN_AI.operationName]: GEN_AI_OPERATIONS.executeTool,
      [GEN_AI.toolName]: name,
      [GEN_AI.toolCallId]: id,
      [GEN_AI.toolType]: "function",
    },
  };
}
