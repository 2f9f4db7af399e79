import { aidInputSchema } from "@/server/agents/schema";
import { listAgentTools } from "@/server/tools";
import { agentToolsSchema } from "@/server/tools/schema";
import { adminProcedure, router } from "@/server/trpc";

export const toolsRouter = router({
  /** Each of the agent's MCP servers with its tools as the server describes them now. */
  list: adminProcedure
    .input(aidInputSchema)
    .output(agentToolsSchema)
    .query(({ ctx, input, signal }) =>
      listAgentTools({ db: ctx.db, tools: ctx.model.tools }, input.aid, signal),
    ),
});
