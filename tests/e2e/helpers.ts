import type { Page } from "@playwright/test";
import type { LocalAccount } from "viem";
import { TEST_ADMIN_KEY } from "../helpers/context";
import { expect, injectWallet } from "./fixtures";

/** The widths every main flow runs at: a laptop, and a phone. */
export const WIDTHS = [
  { name: "1440 wide", viewport: { width: 1440, height: 900 }, suffix: "wide" },
  { name: "390 wide", viewport: { width: 390, height: 844 }, suffix: "phone" },
] as const;

/** A REST call to the test server as the admin (seeding, and checking what the page did). */
export const api = (path: string, init: RequestInit = {}, base = process.env.E2E_BASE_URL) =>
  fetch(`${base}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${TEST_ADMIN_KEY}`,
      "content-type": "application/json",
      ...init.headers,
    },
  });

export async function signInWithWallet(page: Page, wallet: LocalAccount) {
  await injectWallet(page, wallet);
  await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/login$/);
  await page.getByRole("button", { name: /^Connect wallet/ }).click();
  await expect(page.getByTestId("address")).toHaveText(wallet.address);
  await page.getByRole("button", { name: "Sign in with Ethereum" }).click();
  await expect(page.getByTestId("who")).toHaveText(wallet.address);
}

export async function signInWithKey(page: Page) {
  await page.goto("/login");
  await page.getByLabel("Admin API key", { exact: true }).fill(TEST_ADMIN_KEY);
  await page.getByRole("button", { name: "Sign in with the key" }).click();
  await expect(page.getByTestId("who")).toHaveText("Admin (API key)");
}

/** Follows a link of the dashboard's navigation, opening the menu first on a phone. */
export async function navigate(page: Page, label: string) {
  const menu = page.getByRole("button", { name: "Menu" });
  if (await menu.isVisible()) {
    if ((await menu.getAttribute("aria-expanded")) !== "true") await menu.click();
  }
  await page
    .getByRole("navigation", { name: "Dashboard" })
    .getByRole("link", { name: label })
    .click();
}

/** Whether the page scrolls sideways (its content is wider than the window). */
export const scrollsSideways = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

/** Creates agents through the REST API; fails the test if one is refused. */
export async function createAgents(agents: Record<string, unknown>[]) {
  for (const agent of agents) {
    const response = await api("/agents", { method: "POST", body: JSON.stringify(agent) });
    expect(response.status, JSON.stringify(agent)).toBeLessThan(300);
  }
}
