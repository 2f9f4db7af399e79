/**
 * Usage over time (GET /agents/{aid}/usage, GET /usage): messages, runs, tokens, cost and
 * refusals by hour or day. This index is the folder's public surface: import the folder, not its
 * files (docs/architecture.md).
 */
export * from "./schema";
export { agentUsage, allUsage } from "./usage";
export * from "./view";
