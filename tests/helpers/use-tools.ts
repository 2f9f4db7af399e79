import { afterAll, beforeAll, beforeEach } from "vitest";
import type { Clock } from "@/server/kit/clock";
import { createModelRuntime, type ModelRuntime } from "@/server/model-call";
import { headerSecretKey } from "@/server/tools";
import { callerFor, TEST_ADMIN_KEY, testConfig } from "./context";
import type { TestDatabase } from "./databases";
import type { FakeOpenAi } from "./fake-openai";
import { startMcpServer, type TestMcpServer } from "./mcp-server";

/**
 * Loopback is not public: MCP servers there are reached only when MCP_ALLOWED_HOSTS lists it,
 * as the runtimes and callers below do unless a test says otherwise.
 */
export const LOOPBACK_LISTED = { MCP_ALLOWED_HOSTS: "127.0.0.1" };

/**
 * For tool tests: a real MCP server on loopback (started before the block, its records cleared
 * before each test), and model runtimes on the fake endpoint that read header secrets with the
 * tests' admin key, each closed (its MCP connections with it) after the block.
 */
export function useTools(database: () => TestDatabase, fake: () => FakeOpenAi, clock: Clock) {
  let mcp: TestMcpServer | undefined;
  const runtimes: ModelRuntime[] = [];
  beforeAll(async () => {
    mcp = await startMcpServer();
  });
  afterAll(async () => {
    await Promise.all(
      runtimes.map((runtime) =>
        Promise.all([runtime.tools.close(), runtime.endpoints.connections.close()]),
      ),
    );
    await mcp?.close();
  });
  beforeEach(() => {
    mcp?.calls.splice(0);
    mcp?.headers.splice(0);
  });
  const server = () => {
    if (!mcp) throw new Error("the MCP server is not started yet");
    return mcp;
  };
  /** A runtime on the fake model, with settings a test may override. */
  const runtime = (env: Record<string, string> = {}): ModelRuntime => {
    const made = createModelRuntime(
      testConfig({
        LLM_BASE_URL: fake().baseUrl,
        LLM_API_KEY: "sk-test",
        LLM_MAX_RETRIES: "0",
        ...LOOPBACK_LISTED,
        ...env,
      }),
      { headerKey: headerSecretKey(TEST_ADMIN_KEY) },
    );
    runtimes.push(made);
    return made;
  };
  const caller = (
    model?: ModelRuntime,
    options: { signal?: AbortSignal; env?: Record<string, string> } = {},
  ) =>
    callerFor(database().db, {
      clock,
      model,
      signal: options.signal,
      config: testConfig({ ...LOOPBACK_LISTED, ...options.env }),
    });
  /** An agent with the test server as `calc` (and any other fields). */
  const agent = (aid: string, fields: Record<string, unknown> = {}) =>
    caller().agents.upsert({
      aid,
      mcp_servers: [{ name: "calc", url: server().url }],
      ...fields,
    } as { aid: string });
  return { server, runtime, caller, agent };
}
