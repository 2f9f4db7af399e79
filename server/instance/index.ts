/**
 * The server entry's public surface (import the folder, not its files: docs/architecture.md): the
 * headers the entry sets, the mark it serves REST handlers by, and the start state /health is
 * answered by while the services start.
 */
export { PATH_HEADER, PEER_HEADER } from "./headers.ts";
export {
  type CarriedBody,
  carriedBody,
  outlivesItsClient,
  outlivingItsClient,
  SERVED_DIRECTLY,
  servedDirectly,
  streamedResponse,
  type TextChunks,
  textResponse,
  withBody,
} from "./marks.ts";
export { routeHandlers, routesByFilesAlone } from "./nextjs-internals.ts";
export { nodeVersionProblem } from "./node-version.mjs";
export { markStart, STARTING_REASON, type StartState, startState } from "./start-state.ts";
export { sendWebResponse, webRequest } from "./web-bridge.ts";
