// Tools from MCP servers: an agent's servers, the client pool, the toolbox a model call is offered.
export { listAgentTools } from "./listing";
export { capText, resultText } from "./results";
export { createToolRuntime, type ToolRuntime } from "./runtime";
export * from "./schema";
export { decryptHeader, encryptHeader, headerSecretKey, secretHint } from "./secrets";
export { presentServers, storeServers } from "./servers";
export { agentHasTools, openToolbox, type Toolbox, type ToolOutcome } from "./toolbox";
