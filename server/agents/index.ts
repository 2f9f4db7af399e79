/**
 * Agents: their configuration (POST /agents, the dashboard's forms), one agent, the list with its
 * sorts and filters, deletion. Quotas, tools and schedules of an agent are their own domains.
 * This index is the folder's public surface: import the folder, not its files
 * (docs/architecture.md).
 */

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
