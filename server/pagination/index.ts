/**
 * Keyset and offset cursors, and the page parameters every list takes. This index is the folder's
 * public surface: import the folder, not its files (docs/architecture.md).
 */

export { beforeIdCursor, decodeCursor, encodeCursor, keysetPage, offsetCursor } from "./cursor";
export * from "./schema";
