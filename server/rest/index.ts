/**
 * The REST API as the service serves it: the operation table made from the procedures' meta
 * (operations.ts) and the operator's paths (operator.ts), the route handlers found in it
 * (route.ts), and the OpenAPI document made from it (openapi.ts).
 */
export { buildOpenApiDocument } from "./openapi";
export type { Operation } from "./operation";
export { OPERATIONS } from "./operations";
export { dispatch, type RestDispatch, restRoutes } from "./route";
export { type ProcedureDefinition, proceduresOf } from "./trpc-internals";
