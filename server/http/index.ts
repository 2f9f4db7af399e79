/**
 * The REST side of HTTP: route handlers that call the tRPC procedures (restRoute), JSON bodies
 * within bounds, problem responses, server-sent events, CSV. This index is the folder's public
 * surface: import the folder, not its files (docs/architecture.md).
 */
export { wantsCsv } from "./csv";
export {
  errorResponse,
  finish,
  json,
  MAX_BODY_BYTES,
  methodNotAllowed,
  notFoundRoute,
  queryParams,
  readJsonBody,
  readLimitedText,
  restRoute,
} from "./rest";
export { sseResponse } from "./sse";
export { usageCsv } from "./usage-csv";
