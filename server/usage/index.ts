// Usage over time: messages, runs, tokens, cost and refusals by hour or day.
export * from "./schema";
export { agentUsage, allUsage } from "./usage";
export * from "./view";
