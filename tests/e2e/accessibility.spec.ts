import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { TEST_ADMIN_KEY } from "../helpers/admin-key";
import { sampleProposal } from "../helpers/proposal";
import { expect, screenshot, test } from "./fixtures";
import {
  api,
  createAgents,
  scrollsSideways,
  signInWithKey,
  signInWithWallet,
  WIDTHS,
} from "./helpers";
import { userWallet } from "./wallets";

/**
 * Every page, at 1440 and 390 wide, light and dark: axe-core finds no serious or critical
 * violation, nothing scrolls sideways, the title names the page; a screenshot of each.
 */

let deploymentId = 0;
let webhookId = "";

test.beforeAll(async () => {
  await createAgents([
    {
      aid: "za11y",
      name: "Accessible agent with a rather long name that must wrap on a phone",
      autonomous_prompt: "Say hello.",
      quota: { message_limit_daily: 3 },
    },
  ]);
  for (let i = 0; i < 3; i++) {
    await fetch(`${process.env.E2E_BASE_URL}/za11y/chat?q=${encodeURIComponent(`question ${i}`)}`, {
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` },
    });
  }
  await api("/agents/za11y/keys", { method: "POST", body: JSON.stringify({ name: "mobile app" }) });
  await api("/agents/za11y/runs", { method: "POST" });
  const made = await api("/v1/deployments", {
    method: "POST",
    body: JSON.stringify({
      // A long request id: it must wrap, in the table and in the record, not widen the page.
      request_id: `za11y-${"very-long-request-identifier-".repeat(4)}end`,
      user_address: userWallet.address,
      proposal: sampleProposal,
    }),
  });
  deploymentId = (await made.json()).id;
  // An endpoint on a public name (nothing is sent to it here: it subscribes to no event the
  // tests cause), so that its page has something to show.
  const hook = await api("/webhooks", {
    method: "POST",
    body: JSON.stringify({ url: "https://hooks.example.com/agents", events: ["run.failed"] }),
  });
  webhookId = (await hook.json()).id;
  // A person with a key, so that the admins page has a row and a key in it to show.
  const person = await api("/admins", {
    method: "POST",
    body: JSON.stringify({ name: "Ada Accessible", email: "ada.a11y@example.com", role: "viewer" }),
  });
  if (person.status === 201) {
    const { id } = await person.json();
    await api(`/admins/${id}/keys`, { method: "POST", body: JSON.stringify({ name: "laptop" }) });
  }
});

const ADMIN_PAGES = () => [
  { path: "/", title: "Agent Service", name: "home" },
  { path: "/dashboard", title: "Overview · Agent Service", name: "overview" },
  { path: "/dashboard/agents", title: "Agents · Agent Service", name: "agents" },
  { path: "/dashboard/agents/new", title: "New agent · Agent Service", name: "agent-new" },
  { path: "/dashboard/agents/za11y", title: "Agent za11y · Agent Service", name: "agent" },
  {
    path: "/dashboard/agents/za11y?thread=default&caller=admin",
    title: "Agent za11y · Agent Service",
    name: "agent-thread",
  },
  { path: "/dashboard/requests", title: "Request log · Agent Service", name: "requests" },
  { path: "/dashboard/audit", title: "Audit log · Agent Service", name: "audit" },
  { path: "/dashboard/prices", title: "Prices · Agent Service", name: "prices" },
  { path: "/dashboard/webhooks", title: "Webhooks · Agent Service", name: "webhooks" },
  {
    path: `/dashboard/webhooks/${webhookId}`,
    title: "Webhook endpoint · Agent Service",
    name: "webhook",
  },
  { path: "/dashboard/admins", title: "Admins · Agent Service", name: "admins" },
  { path: "/dashboard/deployments", title: "Deployments · Agent Service", name: "deployments" },
  {
    path: `/dashboard/deployments/${deploymentId}`,
    title: `Deployment #${deploymentId} · Agent Service`,
    name: "deployment",
  },
  { path: "/dashboard/no-such-page", title: "Page not found · Agent Service", name: "not-found" },
  { path: "/no-such-page", title: "Page not found · Agent Service", name: "not-found-plain" },
];

/**
 * The serious and critical findings of axe-core on the page as it is. In axe's legacy mode:
 * `axe.run` in the page itself, where the default opens a blank page for each check to finish
 * the frames' partial results in. Its findings on every page here were the same, in half the
 * time (0.55–1.3 s a page against 1.0–2.6 s); what it leaves out, frames of other origins, no
 * page of the service has (its CSP allows none).
 */
async function seriousFindings(page: Page) {
  const results = await new AxeBuilder({ page }).setLegacyMode().analyze();
  return results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
}

/** Runs axe-core on the page as it is; fails with the serious and critical findings. */
async function checkAccessibility(page: Page, label: string) {
  const serious = (await seriousFindings(page)).map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`,
  );
  expect(serious, `${label}: axe violations`).toEqual([]);
}

test("the check finds what it is there to find", async ({ page }) => {
  // A page of its own, not one of the service's: React would take out what is added to one of
  // those when it hydrates, and the check would find nothing because nothing was left to find.
  await page.setContent(
    `<!doctype html><html lang="en"><head><title>Canary</title></head><body><main>
      <h1>Canary</h1><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="><button></button>
      <p style="color: #777; background: #888">faint</p></main></body></html>`,
  );
  const found = (await seriousFindings(page)).map((finding) => finding.id);
  expect(found).toEqual(expect.arrayContaining(["image-alt", "color-contrast", "button-name"]));
});

/** Waits for a page's data (no loading sign left), then checks and photographs it. */
async function visit(page: Page, path: string, label: string) {
  await page.goto(path);
  await expect(page.locator('[aria-busy="true"]')).toHaveCount(0);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await checkAccessibility(page, label);
  expect(await scrollsSideways(page), `${label} scrolls sideways`).toBe(false);
  await screenshot(page, label);
}

for (const { name, viewport, suffix } of WIDTHS) {
  for (const scheme of ["light", "dark"] as const) {
    test(`every page passes axe and fits, ${name}, ${scheme}`, async ({ page }) => {
      test.setTimeout(120_000);
      await page.setViewportSize(viewport);
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto("/login");
      await checkAccessibility(page, `login ${suffix} ${scheme}`);
      expect(await scrollsSideways(page)).toBe(false);
      await expect(page).toHaveTitle("Sign in · Agent Service");
      await screenshot(page, `page-login-${suffix}-${scheme}`);

      await signInWithKey(page);
      for (const { path, title, name: pageName } of ADMIN_PAGES()) {
        await visit(page, path, `page-${pageName}-${suffix}-${scheme}`);
        await expect(page).toHaveTitle(title);
      }
      // Opened states: the usage as a table, the question before leaving unsaved edits, a
      // confirm dialog, and the phone's menu.
      await page.goto("/dashboard/agents/za11y");
      const usage = page.getByRole("region", { name: "Usage, last 30 days" });
      await usage.getByRole("button", { name: "Show as table" }).click();
      await expect(usage.getByTestId("usage-table")).toBeVisible();
      await checkAccessibility(page, `usage table ${suffix} ${scheme}`);
      expect(await scrollsSideways(page)).toBe(false);
      await page.getByLabel("Name", { exact: true }).fill("Edited, not saved");
      await page.getByRole("link", { name: "Back to agents" }).click();
      const leave = page.getByRole("dialog", { name: "Leave without saving?" });
      await expect(leave).toBeVisible();
      await checkAccessibility(page, `leave dialog ${suffix} ${scheme}`);
      await leave.getByRole("button", { name: "Stay" }).click();
      await page.goto("/dashboard/agents/za11y");
      await page.getByRole("button", { name: "Delete agent" }).click();
      await expect(page.getByRole("dialog")).toBeVisible();
      await checkAccessibility(page, `dialog ${suffix} ${scheme}`);
      await page.keyboard.press("Escape");
      await expect(page.getByRole("dialog")).toBeHidden();
      const menu = page.getByRole("button", { name: "Menu" });
      if (await menu.isVisible()) {
        await menu.click();
        await expect(page.getByRole("navigation", { name: "Dashboard" })).toBeVisible();
        await checkAccessibility(page, `menu ${suffix} ${scheme}`);
        expect(await scrollsSideways(page)).toBe(false);
        await screenshot(page, `menu-open-${suffix}-${scheme}`);
      }
    });
  }

  test(`a wallet's pages pass axe and fit, ${name}`, async ({ page }) => {
    await page.setViewportSize(viewport);
    await signInWithWallet(page, userWallet);
    await visit(page, "/dashboard/deployments", `page-deployments-wallet-${suffix}`);
    await visit(page, `/dashboard/deployments/${deploymentId}`, `page-deployment-wallet-${suffix}`);
  });
}

test("the favicon is served, and every page links it", async ({ page }) => {
  for (const path of ["/favicon.ico", "/icon.svg"]) {
    const response = await fetch(`${process.env.E2E_BASE_URL}${path}`);
    expect(response.status, path).toBe(200);
    expect(response.headers.get("content-type"), path).toMatch(/^image\//);
  }
  const missing: string[] = [];
  page.on("response", (response) => {
    if (response.status() === 404) missing.push(response.url());
  });
  await page.goto("/login");
  await expect(page.locator('link[rel="icon"]').first()).toHaveAttribute("href", /icon|favicon/);
  expect(missing).toEqual([]);
});
