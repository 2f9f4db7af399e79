/**
 * Tools from MCP servers: the servers an agent names (secrets encrypted), the client pool, the
 * toolbox a model call is offered, and how a failed call is described. This index is the folder's
 * public surface: import the folder, not its files (docs/architecture.md).
 */
export { listAgentTools } from "./listing";
export { capText, resultText } from "./results";
export { createToolRuntime, type ToolRuntime } from "./runtime";
export * from "./schema";
export { decryptHeader, encryptHeader, headerSecretKey, secretHint } from "./secrets";
export { presentServers, storeServers } from "./servers";
export { agentHasTools, openToolbox, type Toolbox, type ToolOutcome } from "./toolbox";
