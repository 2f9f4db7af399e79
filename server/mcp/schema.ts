import { z } from "zod";
import { pendingApprovalSchema } from "@/server/approvals/schema";
import { chatThreadIdSchema, Q_MAX_LENGTH } from "@/server/chat/schema";
import { lookupAidSchema } from "@/server/kit/agent-id";
import { NUL_RULE, withoutNul } from "@/server/kit/text";
import { usageSchema } from "@/server/model-call/schema";

/** The thread an MCP client's messages go to when it names none. */
export const MCP_THREAD = "mcp";

export const chatToolInput = {
  message: z
    .string()
    .min(1)
    .max(Q_MAX_LENGTH)
    .refine(withoutNul, NUL_RULE)
    .describe(`The message to the agent, 1 to ${Q_MAX_LENGTH.toLocaleString("en")} characters.`),
  thread_id: chatThreadIdSchema
    .optional()
    .describe(
      `The conversation to continue (the agent reads its recent messages); '${MCP_THREAD}' when left out. Any name of yours starts one.`,
    ),
};

export const chatToolOutput = {
  thread_id: z.string().describe("The conversation the exchange was stored in."),
  usage: usageSchema,
  status: z
    .enum(["completed", "requires_approval"])
    .optional()
    .describe(
      "requires_approval: the agent's turn waits for tool calls to be approved (approvals); the rest of its reply is stored in the thread once they are decided.",
    ),
  approvals: z.array(pendingApprovalSchema).optional(),
};

export const mcpChatInputSchema = z.strictObject({
  aid: lookupAidSchema,
  message: chatToolInput.message,
  thread_id: chatThreadIdSchema.default(MCP_THREAD),
});

/** A JSON-RPC message: only the aid is checked here; the MCP SDK's transport reads the rest. */
export const mcpMessageSchema = z
  .looseObject({
    aid: lookupAidSchema,
    jsonrpc: z.unknown().optional().meta({ description: "`2.0`." }),
    method: z.unknown().optional().meta({
      description: "initialize, notifications/initialized, ping, tools/list, tools/call, …",
    }),
    id: z
      .unknown()
      .optional()
      .meta({ description: "A string or an integer; none in a notification." }),
    params: z.unknown().optional(),
  })
  .meta({ id: "McpMessage" });

export const mcpAgentSchema = z.object({ aid: z.string(), name: z.string() });

export type McpAgent = z.infer<typeof mcpAgentSchema>;
