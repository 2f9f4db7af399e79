// The REST API: operations declared once; route handlers and the OpenAPI document made from them.
export { example, problemSchema } from "./documented";
export type { Endpoint } from "./endpoint";
export { ENDPOINTS } from "./endpoints";
export { buildOpenApiDocument } from "./openapi";
export { MAX_BODY_BYTES, readLimitedText } from "./request";
export { errorResponse, finish, json } from "./response";
export { methodNotAllowed, notFoundRoute, routeFor } from "./route";
