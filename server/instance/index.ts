/**
 * The server entry (npm start): one web process, or a node:cluster of web workers on PostgreSQL.
 * main.ts, primary.ts and serve.ts run in Node.js unbundled; the rest of the service reaches this
 * folder only for the headers the entry sets, the mark it serves REST handlers by, and the start
 * state it answers /health by while the services start (and tests for the request the entry
 * hands a handler). This index
 * is the folder's public surface: import the folder, not its files (docs/architecture.md).
 */
export { PATH_HEADER, PEER_HEADER } from "./headers.ts";
export {
  type CarriedBody,
  carriedBody,
  SERVED_DIRECTLY,
  servedDirectly,
  streamedResponse,
  type TextChunks,
  textResponse,
  withBody,
} from "./marks.ts";
export { type DynamicRoute, routesByFirstSegment } from "./route-candidates.ts";
export { markStart, STARTING_REASON, type StartState, startState } from "./start-state.ts";
export { sendWebResponse, webRequest } from "./web-bridge.ts";
