/** The deployment statuses, defined beside the column that checks them (db/enums.ts). */
export { DEPLOYMENT_STATUSES, type DeploymentStatus } from "@/db/enums";
