/**
 * The REST API: every operation declared once (endpoints/, endpoint.ts), the route handlers made
 * from that table (route.ts), the OpenAPI document made from it (openapi.ts), and what REST
 * handlers read and write (request.ts, response.ts, server-sent events, CSV). This index is the
 * folder's public surface: import the folder, not its files (docs/architecture.md).
 */
export { example, problemSchema } from "./documented";
export type { Endpoint } from "./endpoint";
export { ENDPOINTS } from "./endpoints";
export { buildOpenApiDocument } from "./openapi";
export { MAX_BODY_BYTES, readLimitedText } from "./request";
export { errorResponse, finish, json } from "./response";
export { methodNotAllowed, notFoundRoute, routeFor } from "./route";
