/**
 * Calling an agent's model: the public surface that the chat engine and the scheduler use.
 * Slots cap the calls of a process; a call is bounded by its deadline and the client; failures
 * come out in the client's terms; usage is reported or estimated.
 */
export { noModelSlot } from "./failure";
export { type CalledAgent, type ModelCall, type ModelReply, startModelCall } from "./model-call";
export type { CallSettings } from "./request";
export { createModelRuntime, type ModelRuntime } from "./runtime";
export * from "./schema";
export { ModelSlots } from "./slots";
export type { ToolEvent } from "./turns";
