import type { ChatConfig, Config, LlmConfig } from "@/server/frame/config";
import { createProvider, type ModelProvider } from "@/server/providers";
import { createToolRuntime, type ToolRuntime } from "@/server/tools";
import { ModelSlots } from "./slots";

/** What a model call needs beyond the database: made once per process. */
export type ModelRuntime = {
  provider: ModelProvider;
  slots: ModelSlots;
  llm: LlmConfig;
  chat: ChatConfig;
  tools: ToolRuntime;
};

/** `headerKey` reads agents' stored header secrets (from the admin key, server/auth). */
export function createModelRuntime(
  config: Config,
  keys: { headerKey?: Uint8Array } = {},
): ModelRuntime {
  return {
    provider: createProvider(config.llm),
    slots: new ModelSlots(config.llm.maxConcurrency),
    llm: config.llm,
    chat: config.chat,
    tools: createToolRuntime(config.tools, keys.headerKey),
  };
}
