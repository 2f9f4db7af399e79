// An agent as an MCP server (POST /{aid}/mcp): the MCP SDK's server over the chat engine.

export * from "./schema";
export { type AskAgent, answerMcp } from "./server";
