import { agentMcpServers } from "@/server/agents";
import { router, viewerProcedure } from "@/server/frame/trpc";
import { adminErrors, rest } from "@/server/http";
import { aidInputSchema } from "@/server/kit/agent-id";
import { agentToolsSchema, listAgentTools } from "@/server/tools";
import { badAid, notFound } from "./agents";

export const toolsRouter = router({
  list: viewerProcedure
    .meta(
      rest({
        method: "GET",
        path: "/agents/{aid}/tools",
        operationId: "listAgentTools",
        summary:
          "Each of the agent's MCP servers with its tools as the server describes them now (asked at once, not from a cache), and whether allowed_tools lets the agent call each. A server whose tools cannot be listed has the status a tool call of it would have (timeout, refused, error, unreachable) and, in `error`, the sentence the model would be told, never what the server sent.",
        answers: { 200: { description: "The servers and their tools." } },
        refusals: { ...badAid, ...adminErrors, ...notFound },
      }),
    )
    .input(aidInputSchema)
    .output(agentToolsSchema)
    .query(async ({ ctx, input, signal }) =>
      listAgentTools(ctx.model.tools, await agentMcpServers(ctx.db, input.aid), signal),
    ),
});
