// Agents: configuration, listing, deletion; quotas, tools and schedules are domains of their own.

export {
  agentMcpServers,
  agentNotFound,
  agentPaused,
  assertAgentExists,
  deleteAgent,
  getAgent,
  upsertAgent,
} from "./agents";
export { listAgents } from "./list";
export * from "./schema";
export * from "./view";
