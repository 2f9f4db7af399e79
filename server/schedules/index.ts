// An agent's schedule: when its next autonomous run is due.
export { nextOccurrence, nextRunAfterChange, nextSlot, nextSlotAfter } from "./schedule";
export * from "./schema";
export * from "./view";
