/**
 * GET /openapi.json: the OpenAPI 3.1 document, made from the same zod schemas the procedures
 * validate with, with real examples. This index is the folder's public surface: import the
 * folder, not its files (docs/architecture.md).
 */
export { buildOpenApiDocument } from "./document";
export { example } from "./parts";
