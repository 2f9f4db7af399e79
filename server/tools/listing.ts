import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { agents } from "@/db/schema";
import { agentNotFound } from "@/server/agents/agents";
import { cutText } from "@/server/text";
import type { ToolRuntime } from "./runtime";
import type { AgentTools } from "./schema";
import { resolveTarget } from "./servers";

/**
 * Each of an agent's MCP servers with its tools as the server describes them now (not from
 * the pool's cache), and whether the agent may call each: what the agent page shows.
 */
export async function listAgentTools(
  { db, tools }: { db: Db; tools: ToolRuntime },
  aid: string,
  signal?: AbortSignal,
): Promise<AgentTools> {
  const [agent] = await db
    .select({ mcpServers: agents.mcpServers })
    .from(agents)
    .where(eq(agents.aid, aid));
  if (!agent) throw agentNotFound(aid);
  const servers = await Promise.all(
    agent.mcpServers.map(async (server) => {
      const allowed = server.allowed_tools === null ? undefined : new Set(server.allowed_tools);
      const base = { name: server.name, url: server.url };
      const resolved = resolveTarget(server, tools.headerKey);
      if ("problem" in resolved)
        return { ...base, status: "unreachable" as const, error: resolved.problem, tools: [] };
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
        return { ...base, status: "unreachable" as const, error: failureText(error), tools: [] };
      }
    }),
  );
  return { aid, servers };
}

/** What an admin is told of a failed listing: the error's own sentence, shortened. */
function failureText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 300 ? `${cutText(message, 300)}…` : message || "It could not be reached.";
}
