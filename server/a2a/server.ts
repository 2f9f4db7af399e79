import { A2A_PROTOCOL_VERSION } from "@a2a-js/sdk";
import {
  DefaultRequestHandler,
  defaultServerCallContextBuilder,
  JsonRpcTransportHandler,
  UnauthenticatedUser,
} from "@a2a-js/sdk/server";
import { agentCardOf, type CardAgent } from "./card";
import { chatExecutor, type Turn } from "./executor";
import type { TaskRows } from "./store";

/** A JSON-RPC answer of A2A: one object, or (a streamed message) a stream of them. */
export type A2aAnswer = Record<string, unknown> | AsyncGenerator<Record<string, unknown>>;

/**
 * One A2A JSON-RPC message, answered by the A2A SDK's own handler over this agent's chat: made
 * for one request (its tasks are in `a2a_tasks`, so any instance reads or cancels them).
 */
export function answerA2a(
  message: Record<string, unknown>,
  agent: CardAgent,
  tasks: TaskRows,
  turn: Turn,
): Promise<A2aAnswer> {
  const streamed = message.method === "SendStreamingMessage";
  const handler = new DefaultRequestHandler(
    agentCardOf(agent),
    tasks,
    chatExecutor(turn, tasks, streamed),
  );
  const context = defaultServerCallContextBuilder({
    extensions: undefined,
    user: new UnauthenticatedUser(),
    headers: {},
    // The route answers any other A2A-Version itself.
    requestedVersion: A2A_PROTOCOL_VERSION,
  });
  return new JsonRpcTransportHandler(handler).handle(message, context) as Promise<A2aAnswer>;
}

export const jsonRpcError = (id: unknown, error: unknown) => ({
  jsonrpc: "2.0",
  id: id ?? null,
  error: JsonRpcTransportHandler.mapToJSONRPCError(error),
});

/** A SendMessage answered when its task ends: its caller is checked by the chat's own opening. */
export function answeredWhole(message: Record<string, unknown>): boolean {
  if (message.method !== "SendMessage") return false;
  const params = message.params as { configuration?: { returnImmediately?: unknown } } | undefined;
  return params?.configuration?.returnImmediately !== true;
}
