import { exportSPKI, generateKeyPair, SignJWT } from "jose";
import { sampleProposal } from "../helpers/proposal";
import { type RunningServer, startServer } from "../helpers/server";
import { expect, injectWallet, screenshot, test } from "./fixtures";
import { api } from "./helpers";
import { adminWallet, userWallet } from "./wallets";

/**
 * Wallets as people meet them: a sign-in page whose script is still on its way, no wallet
 * installed, a wallet on a network the service does not accept, a wallet user's own deployments
 * with only the changes it may make, and a service that requires a Privy token with every change.
 */

async function deployment(body: Record<string, unknown>, base?: string) {
  const response = await api(
    "/v1/deployments",
    { method: "POST", body: JSON.stringify({ proposal: sampleProposal, ...body }) },
    base,
  );
  expect(response.status).toBe(201);
  return (await response.json()) as { id: number; request_id: string };
}

async function connectAndSignIn(page: import("@playwright/test").Page, base = "") {
  await page.goto(`${base}/login`);
  await page.getByRole("button", { name: /^Connect wallet/ }).click();
  await page.getByRole("button", { name: "Sign in with Ethereum" }).click();
  await expect(page.getByTestId("who")).toHaveText(userWallet.address);
}

test("until the sign-in page's script runs, its buttons wait, and no key goes in a URL", async ({
  page,
}) => {
  await injectWallet(page, adminWallet);
  const asked: string[] = [];
  page.on("request", (request) => asked.push(request.url()));
  // The page's scripts are held, as a slow phone's network holds them, until released below.
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(
    (url) => url.pathname.startsWith("/_next/static/") && url.pathname.endsWith(".js"),
    async (route) => {
      await held;
      await route.continue();
    },
  );
  await page.goto("/login", { waitUntil: "commit" });
  const connect = page.getByRole("button", { name: /^Connect wallet/ });
  await expect(connect).toBeDisabled();
  await expect(page.getByRole("button", { name: "Sign in with the key" })).toBeDisabled();
  // Enter in the key's field sends nothing while its button waits.
  await page.getByLabel("Admin API key", { exact: true }).fill("a-key-typed-too-early");
  await page.getByLabel("Admin API key", { exact: true }).press("Enter");

  release();
  await expect(connect).toBeEnabled();
  await connect.click();
  await expect(page.getByTestId("address")).toHaveText(adminWallet.address);
  expect(asked.filter((url) => url.includes("a-key-typed-too-early"))).toEqual([]);
  expect(page.url()).toMatch(/\/login$/);
});

test("without a wallet in the browser, sign-in says so in words", async ({ page }) => {
  await page.goto("/login");
  await expect(page.getByTestId("no-wallet")).toHaveText(/^No wallet was found in this browser/);
  await expect(page.getByText(/Provider not found|wagmi|viem|Version:/)).toHaveCount(0);
  await screenshot(page, "login-no-wallet");
});

test("a wallet on a network the service does not accept is offered the switch", async ({
  page,
}) => {
  const wallet = await injectWallet(page, userWallet, { chainId: 250 });
  await page.goto("/login");
  await page.getByRole("button", { name: /^Connect wallet/ }).click();
  const wrong = page.getByTestId("wrong-chain");
  await expect(wrong).toContainText("Your wallet is on network 250");
  await expect(page.getByRole("button", { name: "Sign in with Ethereum" })).toBeDisabled();
  await screenshot(page, "login-wrong-chain");
  await wrong.getByRole("button", { name: "Switch to Ethereum" }).click();
  await expect(wrong).toHaveCount(0);
  expect(wallet.chainId).toBe(1);
  await page.getByRole("button", { name: "Sign in with Ethereum" }).click();
  // A wallet user lands on its deployments, not on a page for admins.
  await expect(page).toHaveURL(/\/dashboard\/deployments$/);
  await expect(page.getByText("are for admins")).toHaveCount(0);
});

test("a wallet user is offered only the status changes it may make", async ({ page }) => {
  const unassigned = await deployment({ user_address: userWallet.address });
  const taken = await deployment({
    user_address: userWallet.address,
    worker_address: adminWallet.address,
  });
  await injectWallet(page, userWallet);
  await connectAndSignIn(page);

  await page.goto(`/dashboard/deployments/${unassigned.id}`);
  const menu = page.getByLabel("New status");
  await expect(menu.locator("option")).toHaveText(["Choose…", "Picked up"]);
  await menu.selectOption("pick_up");
  await page.getByRole("button", { name: "Sign and apply" }).click();
  await expect(page.getByTestId("deployment-status")).toHaveAttribute("data-status", "pick_up");
  await expect(menu.locator("option")).toHaveText(["Choose…", "Deploying", "Failed", "Cancelled"]);
  await expect(page.getByTestId("deployment-worker")).toContainText(userWallet.address);

  await page.goto(`/dashboard/deployments/${taken.id}`);
  await expect(page.getByTestId("no-change")).toHaveText(
    "Another worker has picked this deployment up: only that worker or an admin can change it.",
  );
  await expect(page.getByLabel("New status")).toHaveCount(0);
  await screenshot(page, "deployment-no-change");
});

test("the detail page follows a change a worker signs elsewhere", async ({ page }) => {
  const watched = await deployment({ user_address: userWallet.address });
  await injectWallet(page, userWallet);
  await connectAndSignIn(page);
  await page.goto(`/dashboard/deployments/${watched.id}`);
  await expect(page.getByTestId("deployment-status")).toHaveAttribute("data-status", "init");
  // An admin's wallet cancels it elsewhere, signing on the REST path as worker SDKs do: the
  // open page shows the change without a reload.
  const { createSiweMessage } = await import("viem/siwe");
  const { nonce } = await (
    await fetch(`${process.env.E2E_BASE_URL}/v1/nonce?user_address=${adminWallet.address}`)
  ).json();
  const host = new URL(process.env.E2E_BASE_URL ?? "").host;
  const message = createSiweMessage({
    domain: host,
    address: adminWallet.address,
    statement: JSON.stringify({ request_id: watched.request_id, status: "cancelled" }),
    uri: `${process.env.E2E_BASE_URL}/v1/deployments/worker/status`,
    version: "1",
    chainId: 1,
    nonce,
    issuedAt: new Date(),
  });
  const signed = await fetch(`${process.env.E2E_BASE_URL}/v1/deployments/worker/status`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      user_address: adminWallet.address,
      signature: await adminWallet.signMessage({ message }),
      siwe_msg: message,
    }),
  });
  expect(signed.status).toBe(200);
  await expect(page.getByTestId("deployment-status")).toHaveAttribute("data-status", "cancelled", {
    timeout: 15_000,
  });
  await expect(page.getByTestId("no-change")).toHaveText(
    "Cancelled is final: nothing can change it.",
  );
});

test.describe("with PRIVY_REQUIRED", () => {
  let server: RunningServer;
  let base: string;
  let privyKey: CryptoKey;
  const APP = "e2e-privy-app";

  test.beforeAll(async () => {
    const keys = await generateKeyPair("ES256");
    privyKey = keys.privateKey;
    server = await startServer({
      SCHEDULER: "off",
      ADMIN_ADDRESSES: adminWallet.address,
      PRIVY_APP_ID: APP,
      PRIVY_VERIFICATION_KEY: await exportSPKI(keys.publicKey),
      PRIVY_REQUIRED: "true",
    });
    base = `http://localhost:${new URL(server.url).port}`;
  });
  test.afterAll(() => server?.stop());

  test("a change asks for the Privy identity token, and never sends an empty one", async ({
    page,
  }) => {
    const made = await deployment({ user_address: userWallet.address }, base);
    await injectWallet(page, userWallet);
    await connectAndSignIn(page, base);
    await page.goto(`${base}/dashboard/deployments/${made.id}`);
    const token = page.getByLabel("Privy identity token");
    await expect(token).toBeVisible();
    await expect(page.getByText("This dashboard cannot sign you in to Privy")).toBeVisible();
    await page.getByLabel("New status").selectOption("pick_up");
    const apply = page.getByRole("button", { name: "Sign and apply" });
    await expect(apply).toBeDisabled();
    await screenshot(page, "deployment-privy-required");

    const identityToken = await new SignJWT({
      linked_accounts: JSON.stringify([{ type: "wallet", address: userWallet.address }]),
    })
      .setProtectedHeader({ alg: "ES256" })
      .setIssuer("privy.io")
      .setAudience(APP)
      .setSubject("did:privy:e2e")
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(privyKey);
    await token.fill(identityToken);
    await apply.click();
    await expect(page.getByTestId("deployment-status")).toHaveAttribute("data-status", "pick_up");
    await expect(page.getByRole("status").filter({ hasText: "Moved to Picked up." })).toBeVisible();
  });
});
