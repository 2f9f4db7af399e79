import type { ToolsConfig } from "@/server/frame/config";
import { McpPool } from "./pool";

/** What tool calls need beyond the database: made once per process, with the model runtime. */
export type ToolRuntime = {
  pool: McpPool;
  config: ToolsConfig;
  /** Decrypts stored header secrets; without it (some tests) encrypted headers cannot be read. */
  headerKey: Uint8Array | undefined;
  close(): Promise<void>;
};

export function createToolRuntime(config: ToolsConfig, headerKey?: Uint8Array): ToolRuntime {
  const pool = new McpPool(config);
  return { pool, config, headerKey, close: () => pool.close() };
}
