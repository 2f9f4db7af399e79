import type { Config } from "@/server/config";
import { createProvider } from "@/server/providers/provider";
import type { ChatRuntime } from "./chat";
import { ModelSlots } from "./model-slots";

export type { ChatRuntime };

export function createChatRuntime(config: Config): ChatRuntime {
  return {
    provider: createProvider(config.llm),
    slots: new ModelSlots(config.llm.maxConcurrency),
    llm: config.llm,
    chat: config.chat,
  };
}
