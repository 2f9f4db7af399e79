/**
 * GET /v1/models and /v1/models/{model}: the agents a caller may chat with, as OpenAI's models.
 * This index is the folder's public surface: import the folder, not its files
 * (docs/architecture.md).
 */

export { getModel, listModels, modelNotFound } from "./models";
export * from "./schema";
