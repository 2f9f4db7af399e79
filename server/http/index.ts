/**
 * What a REST operation is declared with and answers with: the declaration's types (operation.ts),
 * reading requests, writing answers (JSON, problems, OpenAI's errors, events, CSV) and the pieces
 * of its documentation. Below the routers that declare operations and server/rest that serves them.
 */
export * from "./csv";
export * from "./documented";
export * from "./openai";
export * from "./operation";
export * from "./request";
export * from "./response";
export * from "./sse";
