/**
 * The tests' MCP server (tests/helpers/mcp-server.ts: the SDK over Streamable HTTP, with
 * sessions) as a process of its own for bench/tool-rows.ts, so that neither the load nor the
 * service shares its event loop:
 *
 *   node --import tsx bench/mcp-server.ts
 *
 * Prints its endpoint URL as the first line on stdout; ends on SIGTERM, SIGINT or when the IPC
 * channel to the benchmark closes. It keeps a record of every call for tests; here it is
 * emptied every second.
 */
import { startMcpServer } from "../tests/helpers/mcp-server";

const mcp = await startMcpServer();
const forget = setInterval(() => {
  mcp.calls.splice(0);
  mcp.headers.splice(0);
}, 1000);

const stop = async () => {
  clearInterval(forget);
  await Promise.race([mcp.close(), new Promise((resolve) => setTimeout(resolve, 2000))]);
  process.exit(0);
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
process.once("disconnect", stop);

process.stdout.write(`${mcp.url}\n`);
