import type { AgentRow } from "@/db/schema";
import type { LlmConfig } from "@/server/config";
import type { ChatTurn, ModelRequest } from "@/server/providers";

/** The system prompt names the agent, then gives its own prompt. */
export function systemPrompt(agent: Pick<AgentRow, "name" | "prompt">): string {
  return agent.prompt ? `You are ${agent.name}.\n\n${agent.prompt}` : `You are ${agent.name}.`;
}

/** What the model is asked: the agent's settings, the thread's history, then the question. */
export function modelRequest(
  agent: AgentRow,
  history: ChatTurn[],
  question: string,
  llm: LlmConfig,
  signal: AbortSignal,
): ModelRequest {
  return {
    model: agent.model ?? llm.defaultModel,
    system: systemPrompt(agent),
    messages: [...history, { role: "user", content: question }],
    temperature: agent.temperature ?? undefined,
    maxOutputTokens: llm.maxOutputTokens,
    signal,
  };
}
