import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { FullConfig } from "@playwright/test";
import { startServer } from "../helpers/server";
import { adminWallet } from "./wallets";

/** Where the base URL is also written, for tools that do not inherit the runner's environment. */
export const serverInfoFile = path.resolve("test-results", "e2e-server.json");

/** What the server printed, kept after the run: a failed spec's cause is often only there. */
export const serverLogFile = path.resolve("test-results", "e2e-server.log");

/**
 * Starts the built service (`next build` must have run) on a free port with its own data
 * directory, with the admin test wallet as the only admin. The browser must use `localhost`:
 * Sign-In with Ethereum messages are checked against PUBLIC_URL, which defaults to
 * http://localhost:<port>.
 */
export default async function globalSetup(_config: FullConfig) {
  const server = await startServer({
    ADMIN_ADDRESSES: adminWallet.address,
    SCHEDULER_TICK_MS: "200",
  });
  const baseURL = `http://localhost:${new URL(server.url).port}`;
  // Workers are started after the global setup and inherit the runner's environment; the
  // config, evaluated again in each worker, reads it into `use.baseURL`.
  process.env.E2E_BASE_URL = baseURL;
  await mkdir(path.dirname(serverInfoFile), { recursive: true });
  await writeFile(serverInfoFile, `${JSON.stringify({ baseURL, dataDir: server.dataDir })}\n`);

  return async () => {
    await server.stop();
    await writeFile(serverLogFile, server.output());
  };
}
