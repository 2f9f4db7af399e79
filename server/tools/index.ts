/**
 * Tools from MCP servers: the public surface the model loop, the agents module and the tools
 * router use. Connections are pooled per process (pool.ts); every call is bounded in time and
 * size, only to allowed tools on allowed hosts; header secrets are stored encrypted.
 */
export { hostAllowed, urlProblem } from "./hosts";
export { listAgentTools } from "./listing";
export { createToolRuntime, type ToolRuntime } from "./runtime";
export { headerSecretKey } from "./secrets";
export { presentServers, storeServers } from "./servers";
export { agentHasTools, openToolbox, type Toolbox, type ToolOutcome } from "./toolbox";
