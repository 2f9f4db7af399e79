import { agentMcpServers } from "@/server/agents";
import { adminProcedure, router } from "@/server/frame/trpc";
import { aidInputSchema } from "@/server/kit/agent-id";
import { agentToolsSchema, listAgentTools } from "@/server/tools";

export const toolsRouter = router({
  /** Each of the agent's MCP servers with its tools as the server describes them now. */
  list: adminProcedure
    .input(aidInputSchema)
    .output(agentToolsSchema)
    .query(async ({ ctx, input, signal }) =>
      listAgentTools(ctx.model.tools, await agentMcpServers(ctx.db, input.aid), signal),
    ),
});
