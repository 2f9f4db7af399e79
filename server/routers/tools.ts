import { aidInputSchema } from "@/server/agent-id";
import { agentMcpServers } from "@/server/agents";
import { agentToolsSchema, listAgentTools } from "@/server/tools";
import { adminProcedure, router } from "@/server/trpc";

export const toolsRouter = router({
  list: adminProcedure
    .input(aidInputSchema)
    .output(agentToolsSchema)
    .query(async ({ ctx, input, signal }) =>
      listAgentTools(ctx.model.tools, await agentMcpServers(ctx.db, input.aid), signal),
    ),
});
