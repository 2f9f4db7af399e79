/** The deployment statuses; kept apart so that browser code can import them without the database. */
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
