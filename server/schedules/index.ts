/**
 * An agent's schedule: when its next autonomous run is due. This index is the folder's public
 * surface: import the folder, not its files (docs/architecture.md).
 */
export { nextOccurrence, nextRunAfterChange, nextSlot, nextSlotAfter } from "./schedule";
export * from "./schema";
export * from "./view";
