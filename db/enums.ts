/**
 * Value sets that a column's CHECK constraint and the API's schemas share. Free of imports, so
 * that the dashboard's forms can use them without pulling in the database code.
 */

/** Who may chat with an agent: anyone, or only callers with one of its keys. */
export const CHAT_ACCESS = ["public", "key"] as const;

/** The deployment statuses (the interface's `Status`), in the order of a deployment's life. */
export const DEPLOYMENT_STATUSES = [
  "init",
  "pick_up",
  "deploying",
  "deployed",
  "generated_proof",
  "failed",
  "cancelled",
] as const;

export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];
