import type { StoredMcpServer } from "@/db/schema";
import { describeFailure } from "./failures";
import { notCalled } from "./requests";
import type { ToolRuntime } from "./runtime";
import type { AgentTools } from "./schema";
import { resolveTarget } from "./servers";

/**
 * Each of the agent's MCP servers with its tools as the server describes them now, not cached; a
 * server that cannot be listed is described as a tool call of it would be.
 */
export async function listAgentTools(
  tools: ToolRuntime,
  agent: { aid: string; mcpServers: StoredMcpServer[] },
  signal?: AbortSignal,
): Promise<AgentTools> {
  const servers = await Promise.all(
    agent.mcpServers.map(async (server) => {
      const allowed = server.allowed_tools === null ? undefined : new Set(server.allowed_tools);
      const base = { name: server.name, url: server.url };
      const failed = (error: unknown) => {
        const { outcome, error: why } = describeFailure(error, server.name, tools.config.timeoutMs);
        return { ...base, status: outcome, error: why, tools: [] };
      };
      const resolved = resolveTarget(server, tools.headerKey);
      if ("problem" in resolved) return failed(notCalled(resolved.problem));
      try {
        const listed = await tools.pool.listTools(
          resolved.target,
          signal ?? new AbortController().signal,
          true,
        );
        return {
          ...base,
          status: "ok" as const,
          error: null,
          tools: listed.map((tool) => ({
            name: tool.name,
            description: tool.description ?? null,
            input_schema: tool.inputSchema,
            allowed: !allowed || allowed.has(tool.name),
          })),
        };
      } catch (error) {
        return failed(error);
      }
    }),
  );
  return { aid: agent.aid, servers };
}
