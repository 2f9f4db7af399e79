import type { ChatConfig, Config, LlmConfig } from "@/server/frame/config";
import { Connections } from "@/server/kit/connections";
import type { EndpointsRuntime } from "@/server/model-endpoints";
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
  /** For agents with model endpoints of their own. */
  endpoints: EndpointsRuntime;
};

/**
 * `headerKey` reads agents' stored header secrets, `endpointKey` their model endpoints' API keys
 * (both from the admin key, server/auth).
 */
export function createModelRuntime(
  config: Config,
  keys: { headerKey?: Uint8Array; endpointKey?: Uint8Array } = {},
): ModelRuntime {
  return {
    provider: createProvider(config.llm),
    slots: new ModelSlots(config.llm.maxConcurrency),
    llm: config.llm,
    chat: config.chat,
    tools: createToolRuntime(config.tools, keys.headerKey),
    endpoints: {
      connections: new Connections({ rules: config.llm.allowedHosts }),
      key: keys.endpointKey,
      llm: config.llm,
    },
  };
}
