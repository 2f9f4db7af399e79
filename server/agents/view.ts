// Plain values without zod: the dashboard's agents page uses them, and its first load must stay
// small.

export const AGENT_SORTS = ["aid", "name", "quota", "activity"] as const;
export type AgentSort = (typeof AGENT_SORTS)[number];
