// Agents over A2A (Agent2Agent 1.0): an agent card and a JSON-RPC server per agent, through the
// A2A SDK's handler over the chat engine.

export { a2aUrl, agentCardJson, type CardAgent } from "./card";
export type { Turn } from "./executor";
export * from "./schema";
export { type A2aAnswer, answerA2a, answeredWhole, jsonRpcError } from "./server";
export { TaskRows } from "./store";
