import { z } from "zod";
import { type Ask, ask, type ChatReply, chatReplySchema, checkChat } from "@/server/chat";
import { problemFromError } from "@/server/frame/errors";
import { publicProcedure, router } from "@/server/frame/trpc";
import { problem, rest } from "@/server/http";
import { lookupAidSchema } from "@/server/kit/agent-id";
import { parsedSynchronously } from "@/server/kit/zod-internals";
import {
  answerMcp,
  type McpAgent,
  mcpAgentSchema,
  mcpChatInputSchema,
  mcpMessageSchema,
} from "@/server/mcp";
import * as examples from "./examples-mcp";

// POST /{aid}/mcp: the agent as an MCP server. Its tool's calls are chats (`mcp.chat`), logged
// with via `mcp`.

const MCP_BODY_MAX_BYTES = 64 * 1024;

const PUBLIC_OR_AGENT_KEY: Record<string, string[]>[] = [{}, { agentKey: [] }];

/** Refusals of who asks, answered in HTTP (401 with its challenge, 403, 404), not by the tool. */
const CALLER_REFUSALS = new Set(["agent_not_found", "agent_paused", "key_required", "invalid_key"]);

export const mcpRouter = router({
  /** The MCP SDK's transport, once the procedure (the admission check) let the caller in. */
  handle: publicProcedure
    .meta(
      rest<McpAgent>({
        method: "POST",
        path: "/{aid}/mcp",
        operationId: "mcp",
        summary: "The agent as an MCP server (Streamable HTTP, stateless): one tool, `chat`.",
        description:
          "A JSON-RPC 2.0 message of the Model Context Protocol (versions 2025-11-25, 2025-06-18, 2025-03-26 and 2024-11-05), answered as JSON; no session is kept, so any instance answers. Send `Accept: application/json, text/event-stream`. tools/list gives one tool, `chat` (`message`, and `thread_id` to continue a conversation, `mcp` by default); tools/call of it asks the agent with the same access, rate limit, quota and token budgets as GET /{aid}/chat, and answers the reply as text content with `thread_id` and `usage` as structured content. A refusal or failure of the chat (quota, rate limit, budget, the provider) is a tool result with `isError` and the sentence a chat would have answered; a malformed message is a JSON-RPC error. The caller is checked before the message is read: 401 with `WWW-Authenticate: Bearer` when the agent takes its keys only and none (or a wrong one) is sent.",
        security: PUBLIC_OR_AGENT_KEY,
        body: { required: true, maxBytes: MCP_BODY_MAX_BYTES, examples: examples.toolCall },
        handle: async ({ request, call, callProcedure, input }) => {
          const { aid, ...message } = input;
          // A tool call is a chat, whose opening checks the caller itself: its refusal of the
          // caller is answered as this check's would be.
          const toolCall =
            message.method === "tools/call" && lookupAidSchema.safeParse(aid).success;
          const agent = toolCall ? { aid: String(aid), name: String(aid) } : await call(input);
          let refusedCaller: unknown;
          const response = await answerMcp(request, message, agent, async (args) => {
            try {
              return (await callProcedure("mcp.chat", { aid: agent.aid, ...args })) as ChatReply;
            } catch (error) {
              if (CALLER_REFUSALS.has(problemFromError(error).code)) refusedCaller = error;
              throw error;
            }
          });
          if (refusedCaller) throw refusedCaller;
          return response;
        },
        answers: {
          200: {
            description:
              "The JSON-RPC answer: the result, or a JSON-RPC error for a malformed message or an unknown method.",
            schema: z.looseObject({ jsonrpc: z.literal("2.0") }).meta({ id: "McpAnswer" }),
            examples: examples.toolResult,
          },
          202: {
            description: "A notification or a response from the client, accepted; no body.",
            empty: true,
          },
        },
        refusals: {
          400: problem("A body that is not a JSON-RPC message, or an aid that cannot be one."),
          401: problem(
            "key_required: the agent takes chats from its keys only; invalid_key: the key sent is wrong, revoked or another agent's. With `WWW-Authenticate: Bearer`.",
          ),
          403: problem("agent_paused: the agent takes no chats while it is paused."),
          404: problem("Unknown agent."),
          406: problem("The client does not accept both application/json and text/event-stream."),
          413: problem(`The body is larger than ${MCP_BODY_MAX_BYTES / 1024} KiB.`),
          415: problem("The body is not sent as Content-Type: application/json."),
        },
      }),
    )
    .input(mcpMessageSchema)
    .output(mcpAgentSchema)
    .mutation(({ ctx, input }) => checkChat(ctx, input)),

  chat: publicProcedure
    .input(parsedSynchronously(mcpChatInputSchema))
    .output(parsedSynchronously(chatReplySchema))
    .mutation(({ ctx, input, signal }) => {
      const question: Ask = {
        via: "mcp",
        aid: input.aid,
        chatId: input.thread_id,
        question: input.message,
      };
      return ask(ctx, question, signal);
    }),
});
