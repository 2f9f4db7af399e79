import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { z } from "zod";
import { type ChatReply, replyText } from "@/server/chat";
import { problemFromError } from "@/server/frame/errors";
import { textResponse } from "@/server/instance";
import { log } from "@/server/observability";
import { chatToolInput, chatToolOutput, type McpAgent } from "./schema";

// An agent as an MCP server, made for one request and closed after it (stateless): any worker
// or instance answers any request. Its tool `chat` asks the agent as GET /{aid}/chat would.

export type AskAgent = (args: {
  message: string;
  thread_id?: string | undefined;
}) => Promise<ChatReply>;

const VERSION = "0.1.0";

// One for every request: a server makes its own otherwise, which was half of its cost, and this
// one never runs (it checks what a client is asked to fill in, which these servers never ask).
const validator = new AjvJsonSchemaValidator();

// Objects made once: given a shape, the SDK would make one for every request's server.
const toolInput = z.object(chatToolInput);
const toolOutput = z.object(chatToolOutput);

export async function answerMcp(
  request: Request,
  message: unknown,
  agent: McpAgent,
  askAgent: AskAgent,
): Promise<Response> {
  const server = new McpServer(
    { name: `agent-service/${agent.aid}`, title: agent.name, version: VERSION },
    {
      jsonSchemaValidator: validator,
      instructions: `The agent '${agent.name}' (${agent.aid}) of an Agent Service. Its one tool, chat, sends it a message and returns its reply; a thread_id continues a conversation, whose recent messages the agent reads.`,
    },
  );
  server.registerTool(
    "chat",
    {
      title: `Chat with ${agent.name}`,
      description: `Sends a message to the agent '${agent.name}' and returns its reply as text; thread_id and the tokens used come back as structured content.`,
      inputSchema: toolInput,
      outputSchema: toolOutput,
    },
    async ({ message: text, thread_id }) => {
      try {
        const reply = await askAgent({ message: text, thread_id });
        const structured = { thread_id: reply.chat_id, usage: reply.usage };
        if (reply.status === "completed")
          return { content: [{ type: "text", text: reply.reply }], structuredContent: structured };
        // MCP has no pending state for a tool call: its result says what waits, and on whom.
        return {
          content: [{ type: "text", text: replyText(reply) }],
          structuredContent: { ...structured, status: reply.status, approvals: reply.approvals },
        };
      } catch (error) {
        return toolError(error, agent);
      }
    },
  );
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    const answered = await transport.handleRequest(request, { parsedBody: message });
    // The SDK answers one JSON text, in a Web body the entry would read back in chunks: carried
    // as text, it is written at once, with its length.
    if (answered.body === null) return answered;
    const init = { status: answered.status, headers: answered.headers };
    return textResponse(await answered.text(), init);
  } catch (error) {
    // Closing aborts what the server still runs. Once the answer is made nothing runs, and the
    // server and transport hold no timer: they are left to the collector, as closing them made
    // an error and aborted a finished request, to tell no one.
    await server.close();
    throw error;
  }
}

/** A turn that failed, as the tool's error: the sentence a chat would have answered with. */
function toolError(error: unknown, agent: McpAgent): CallToolResult {
  const problem = problemFromError(error);
  if (problem.status >= 500 && problem.code === "internal_error")
    log.error({ err: error, aid: agent.aid }, "An MCP chat with an agent failed");
  return { isError: true, content: [{ type: "text", text: problem.detail }] };
}
