import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer, TEST_ADMIN_KEY } from "../helpers/server";

/**
 * The dashboard's page weight: the JavaScript a modern browser loads first (the page's
 * `<script src>` tags, without the `noModule` polyfills only old browsers fetch), gzipped.
 * The budget for /dashboard/agents is 200 kB; wallet code (wagmi) belongs only on the pages
 * that sign.
 */
const BUDGET_BYTES = 200 * 1000;
const WALLET_MARKER = "eip6963:requestProvider";

describe("dashboard page weight", () => {
  let server: RunningServer;
  let cookie: string;

  beforeAll(async () => {
    server = await startServer();
    const response = await fetch(`${server.url}/api/trpc/auth.signInWithKey`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ key: TEST_ADMIN_KEY }),
    });
    cookie = (response.headers.get("set-cookie") ?? "").split(";")[0] as string;
  });
  afterAll(() => server?.stop());

  async function firstLoad(path: string) {
    const html = await (await fetch(`${server.url}${path}`, { headers: { cookie } })).text();
    const sources = [...html.matchAll(/<script\b([^>]*)>/g)]
      .map((match) => match[1] ?? "")
      .filter((attributes) => !/\bnoModule\b/i.test(attributes))
      .map((attributes) => /\bsrc="([^"]+)"/.exec(attributes)?.[1])
      .filter((src): src is string => src !== undefined);
    const scripts = await Promise.all(
      [...new Set(sources)].map(async (src) => (await fetch(`${server.url}${src}`)).text()),
    );
    return {
      files: scripts.length,
      gzipBytes: scripts.reduce((sum, text) => sum + gzipSync(text, { level: 9 }).byteLength, 0),
      hasWalletCode: scripts.some((text) => text.includes(WALLET_MARKER)),
    };
  }

  it("keeps /dashboard/agents within 200 kB gzip, without wallet code", async () => {
    const agents = await firstLoad("/dashboard/agents");
    console.info(
      `/dashboard/agents first-load JS: ${agents.files} files, ${(agents.gzipBytes / 1000).toFixed(1)} kB gzip`,
    );
    expect(agents.files).toBeGreaterThan(3);
    expect(agents.hasWalletCode).toBe(false);
    expect(agents.gzipBytes).toBeLessThanOrEqual(BUDGET_BYTES);
  });

  it("loads the wallet code on the sign-in page", async () => {
    const login = await firstLoad("/login");
    console.info(
      `/login first-load JS: ${login.files} files, ${(login.gzipBytes / 1000).toFixed(1)} kB gzip`,
    );
    expect(login.hasWalletCode).toBe(true);
  });
});
