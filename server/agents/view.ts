/**
 * The agents listing's orders as plain values, without zod: the dashboard's agents page uses
 * them, and its first load must stay small (schema.ts brings zod).
 */

/** The orders agents can be listed in. */
export const AGENT_SORTS = ["aid", "name", "quota", "activity"] as const;
export type AgentSort = (typeof AGENT_SORTS)[number];
