import { GEN_AI, GEN_AI_OPERATIONS } from "@/server/observability";
import type { ChatEvent, ChatReply } from "./schema";

// The chat's spans, when tracing is on: the turn (GenAI conventions: `invoke_agent {aid}`) and
// its two groups of statements.

/** The chat's span (GenAI conventions: `invoke_agent {aid}`), its options. */
export const chatSpan = ({ aid, chatId, via }: { aid: string; chatId: string; via: string }) =>
  [
    `${GEN_AI_OPERATIONS.invokeAgent} ${aid}`,
    {
      attributes: {
        [GEN_AI.operationName]: GEN_AI_OPERATIONS.invokeAgent,
        [GEN_AI.agentId]: aid,
        [GEN_AI.conversationId]: chatId,
        "agent_service.via": via,
      },
    },
  ] as const;

export const replyAttributes = (reply: ChatReply) => ({
  [GEN_AI.responseModel]: reply.model,
  [GEN_AI.inputTokens]: reply.usage.input_tokens,
  [GEN_AI.outputTokens]: reply.usage.output_tokens,
  ...(reply.endpoint ? { "agent_service.model_endpoint": reply.endpoint } : {}),
});

/** The events as they come, `seen` told of the stored reply in `done`. */
export async function* onDone(
  events: AsyncGenerator<ChatEvent, void, undefined>,
  seen: (reply: ChatReply) => void,
): AsyncGenerator<ChatEvent, void, undefined> {
  for await (const event of events) {
    if (event.type === "done") seen(event);
    yield event;
  }
}

/** The chat's two groups of statements: opening (admission, quota, history) and storing. */
export const DB_SPAN = {
  opening: ["chat.opening", dbAttributes("chat.opening")],
  store: ["chat.store", dbAttributes("chat.store")],
} as const;

function dbAttributes(operation: string) {
  return { attributes: { "db.system.name": "postgresql", "db.operation.name": operation } };
}
