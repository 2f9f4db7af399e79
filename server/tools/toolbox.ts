import type { AgentRow, StoredMcpServer } from "@/db/schema";
import { cutText, storableText } from "@/server/kit/text";
import { log, metrics } from "@/server/observability";
import type { ModelTool, ToolCallRequest } from "@/server/providers";
import { describeFailure, type ToolOutcomeKind } from "./failures";
import type { McpTarget } from "./pool";
import { notCalled } from "./requests";
import { resultText } from "./results";
import type { ToolRuntime } from "./runtime";
import type { ToolCall } from "./schema";
import { resolveTarget } from "./servers";

export type ToolOutcome = Omit<ToolCall, "id" | "step">;

export type Toolbox = {
  definitions: ModelTool[];
  definitionChars: number;
  /**
   * The server and tool behind a name the model was offered, and whether its calls wait for an
   * approval; undefined for any other name.
   */
  offered(name: string): { server: string; tool: string; approval: boolean } | undefined;
  /**
   * Never throws for the tool's sake: a failure is an outcome with `error`. It throws only when
   * `signal` ends, which is the chat's failure, not the tool's.
   */
  call(request: ToolCallRequest, signal: AbortSignal): Promise<ToolOutcome>;
};

/** The model's name for a tool: as the server names it, if that is a valid and unique one. */
const MODEL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** OpenAI accepts at most 128 tools a request. */
const MAX_TOOLS = 128;
const MAX_DESCRIPTION_CHARS = 1024;

// `tool` is the server's name for it, `recorded` that name made storable; `target` is a
// refusal's sentence when its server cannot be called.
type Offered = {
  server: string;
  tool: string;
  recorded: string;
  target: McpTarget | string;
  approval: boolean;
};

export function agentHasTools(agent: Pick<AgentRow, "mcpServers" | "maxToolSteps">): boolean {
  return agent.maxToolSteps > 0 && agent.mcpServers.length > 0;
}

/**
 * The agent's allowed tools for one model call. A server that cannot be read offers only the
 * tools its allowed_tools names, so that a call fails as a tool error the model can answer.
 */
export async function openToolbox(
  runtime: ToolRuntime,
  agent: Pick<AgentRow, "aid" | "mcpServers">,
  signal: AbortSignal,
): Promise<Toolbox> {
  const listed = await Promise.all(
    agent.mcpServers.map((server) => listServer(runtime, agent.aid, server, signal)),
  );
  const counts = new Map<string, number>();
  for (const { tools } of listed)
    for (const tool of tools) counts.set(tool.name, (counts.get(tool.name) ?? 0) + 1);
  const offered = new Map<string, Offered>();
  const definitions: ModelTool[] = [];
  for (const { server, target, tools } of listed) {
    const gated = new Set(server.approval_required_tools ?? []);
    for (const tool of tools) {
      if (definitions.length >= MAX_TOOLS) break;
      const name = modelName(server.name, tool.name, counts, offered);
      offered.set(name, {
        server: server.name,
        tool: tool.name,
        recorded: storableText(tool.name),
        target,
        approval: gated.has("*") || gated.has(tool.name),
      });
      definitions.push({
        type: "function",
        function: {
          name,
          ...(tool.description
            ? { description: cutText(tool.description, MAX_DESCRIPTION_CHARS) }
            : {}),
          parameters: tool.inputSchema,
        },
      });
    }
  }
  return {
    definitions,
    definitionChars: JSON.stringify(definitions).length,
    offered: (name) => {
      const found = offered.get(name);
      return found && { server: found.server, tool: found.recorded, approval: found.approval };
    },
    call: (request, callSignal) => callTool(runtime, offered, request, callSignal),
  };
}

type ListedTool = { name: string; description?: string; inputSchema: Record<string, unknown> };

async function listServer(
  runtime: ToolRuntime,
  aid: string,
  server: StoredMcpServer,
  signal: AbortSignal,
): Promise<{ server: StoredMcpServer; target: McpTarget | string; tools: ListedTool[] }> {
  const allowed = server.allowed_tools === null ? undefined : new Set(server.allowed_tools);
  const resolved = resolveTarget(server, runtime.headerKey);
  // Headers that cannot be resolved: the server is never called, its calls fail with why.
  const target =
    "target" in resolved
      ? resolved.target
      : describeFailure(notCalled(resolved.problem), server.name, runtime.config.timeoutMs).error;
  try {
    if ("problem" in resolved) throw notCalled(resolved.problem);
    const tools = await runtime.pool.listTools(resolved.target, signal);
    return { server, target, tools: tools.filter((tool) => !allowed || allowed.has(tool.name)) };
  } catch (error) {
    if (signal.aborted) throw error;
    log.warn(
      { aid, mcp_server: server.name, err: error },
      `MCP server '${server.name}' of agent '${aid}' could not be listed`,
    );
    const blind = [...(allowed ?? [])].map((name) => ({
      name,
      inputSchema: { type: "object" },
    }));
    return { server, target, tools: blind };
  }
}

function modelName(
  server: string,
  tool: string,
  counts: Map<string, number>,
  taken: Map<string, Offered>,
): string {
  if (MODEL_NAME.test(tool) && counts.get(tool) === 1 && !taken.has(tool)) return tool;
  const base = `${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 60);
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
  return name;
}

async function callTool(
  runtime: ToolRuntime,
  offered: Map<string, Offered>,
  request: ToolCallRequest,
  signal: AbortSignal,
): Promise<ToolOutcome> {
  const started = performance.now();
  const found = offered.get(request.name);
  const args = parseArguments(request.arguments);
  const done = (
    outcome: ToolOutcomeKind,
    result: string | null,
    error: string | null,
  ): ToolOutcome => {
    const durationMs = performance.now() - started;
    metrics.toolCalls.observe({ outcome }, durationMs / 1000);
    return {
      server: found?.server ?? null,
      name: found?.recorded ?? request.name,
      arguments: args.ok ? args.value : request.arguments,
      result,
      error,
      duration_ms: Math.round(durationMs * 10) / 10,
    };
  };
  if (!found) return done("refused", null, `This agent has no tool named '${request.name}'.`);
  if (!args.ok) return done("refused", null, "The arguments are not a JSON object.");
  if (typeof found.target === "string") return done("refused", null, found.target);
  try {
    const result = await runtime.pool.callTool(found.target, found.tool, args.value, signal);
    const { text, isError } = resultText(result, runtime.config.maxResultChars);
    return isError
      ? done("error", null, text || "The tool reported an error.")
      : done("ok", text, null);
  } catch (error) {
    if (signal.aborted) throw error;
    const failure = describeFailure(error, found.server, runtime.config.timeoutMs);
    return done(failure.outcome, null, failure.error);
  }
}

function parseArguments(
  text: string,
): { ok: true; value: Record<string, unknown> } | { ok: false } {
  if (text.trim() === "") return { ok: true, value: {} };
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === "object" && !Array.isArray(value))
      return { ok: true, value: value as Record<string, unknown> };
  } catch {}
  return { ok: false };
}
