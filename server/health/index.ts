// GET /health and the probes.
export { checkDatabase, healthOf, healthReport, healthSchema } from "./health";
export { probeSchema, readiness } from "./probes";
