/**
 * GET /health and the probes /health/live and /health/ready. This index is the folder's public
 * surface: import the folder, not its files (docs/architecture.md).
 */
export { checkDatabase, healthOf, healthReport, healthSchema } from "./health";
export { probeSchema, readiness } from "./probes";
