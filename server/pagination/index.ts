// Keyset and offset cursors, and the page parameters every list takes.

export {
  beforeIdCursor,
  decodeCursor,
  encodeCursor,
  keysetPage,
  offsetCursor,
  twoWayPage,
} from "./cursor";
export * from "./schema";
