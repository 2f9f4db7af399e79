import { existsSync } from "node:fs";
import { defineConfig, devices } from "@playwright/test";

/**
 * Browser tests: real Chromium against the built service (`next build` first), started once
 * by the global setup with a test wallet injected into pages (tests/e2e/fixtures.ts).
 */

const chromiumPath =
  process.env.PLAYWRIGHT_CHROMIUM_PATH ||
  (existsSync("/usr/bin/chromium") ? "/usr/bin/chromium" : undefined);

export default defineConfig({
  testDir: "tests/e2e",
  testMatch: "**/*.spec.ts",
  workers: 1,
  retries: 0,
  timeout: 60_000,
  outputDir: "test-results",
  reporter: [["list"], ["./tests/e2e/summary-reporter.ts"]],
  globalSetup: "tests/e2e/global-setup.ts",
  use: {
    // Set by the global setup, which runs before the workers are started (they inherit it).
    baseURL: process.env.E2E_BASE_URL,
    screenshot: "only-on-failure",
    trace: "off",
  },
  projects: [
    {
      name: "chromium",
      use: {
        ...devices["Desktop Chrome"],
        // A laptop; the specs that check phones set 390 px themselves.
        viewport: { width: 1440, height: 900 },
        headless: true,
        launchOptions: {
          executablePath: chromiumPath,
          args: [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-quic",
          ],
        },
      },
    },
  ],
});
