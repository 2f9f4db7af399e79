import type { AgentRow } from "@/db/schema";
import type { LlmConfig } from "@/server/frame/config";
import type { ChatTurn, ModelRequest, Sampling } from "@/server/providers";

/**
 * What a caller may choose for one call (POST /v1/chat/completions), over the agent's and the
 * service's settings. The agent's system prompt is never the caller's to change.
 */
export type CallSettings = Sampling & { temperature?: number; maxOutputTokens?: number };

export function systemPrompt(agent: Pick<AgentRow, "name" | "prompt">): string {
  return agent.prompt ? `You are ${agent.name}.\n\n${agent.prompt}` : `You are ${agent.name}.`;
}

/** What the model is asked: the agent's settings, the thread's history, then the question. */
export function modelRequest(
  agent: Pick<AgentRow, "name" | "prompt" | "model" | "temperature">,
  history: ChatTurn[],
  question: string,
  llm: LlmConfig,
  signal: AbortSignal,
  settings?: CallSettings,
): ModelRequest {
  const request: ModelRequest = {
    model: agent.model ?? llm.defaultModel,
    system: systemPrompt(agent),
    messages: [...history, { role: "user", content: question }],
    temperature: agent.temperature ?? undefined,
    maxOutputTokens: llm.maxOutputTokens,
    signal,
  };
  if (!settings) return request;
  const { temperature, maxOutputTokens, ...sampling } = settings;
  if (temperature !== undefined) request.temperature = temperature;
  if (maxOutputTokens !== undefined) request.maxOutputTokens = maxOutputTokens;
  if (Object.values(sampling).some((value) => value !== undefined)) request.sampling = sampling;
  return request;
}
