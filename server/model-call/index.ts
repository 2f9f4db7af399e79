// Calling an agent's model, for the chat engine and the scheduler.
export { noModelSlot } from "./failure";
export { type CalledAgent, type ModelCall, type ModelReply, startModelCall } from "./model-call";
export type { Decision, PausedTurns } from "./pause";
export type { CallSettings } from "./request";
export { createModelRuntime, type ModelRuntime } from "./runtime";
export * from "./schema";
export { ModelSlots } from "./slots";
export type { ToolEvent } from "./turns";
