import type { Page } from "@playwright/test";
import type { LocalAccount } from "viem";
import { TEST_ADMIN_KEY } from "../helpers/context";
import { sampleProposal } from "../helpers/proposal";
import { expect, injectWallet, screenshot, test } from "./fixtures";
import { adminWallet, userWallet } from "./wallets";

/** The dashboard, driven in real Chromium with the injected test wallet. */

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${process.env.E2E_BASE_URL}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${TEST_ADMIN_KEY}`,
      "content-type": "application/json",
      ...init.headers,
    },
  });

const proposal = sampleProposal;

async function signIn(page: Page, wallet: LocalAccount) {
  await injectWallet(page, wallet);
  await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/login$/);
  await page.getByRole("button", { name: /^Connect wallet/ }).click();
  await expect(page.getByTestId("address")).toHaveText(wallet.address);
  await page.getByRole("button", { name: "Sign in with Ethereum" }).click();
  await expect(page).toHaveURL(/\/dashboard/);
  await expect(page.getByTestId("who")).toHaveText(wallet.address);
}

test("an admin signs in with a wallet and sees the overview", async ({ page }) => {
  await signIn(page, adminWallet);
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  await expect(page.getByText("healthy")).toBeVisible();
  await screenshot(page, "overview");
});

test("the admin key signs in too, and a wrong one is refused", async ({ page }) => {
  await page.goto("/login");
  await screenshot(page, "login");
  await page.getByLabel("Admin API key", { exact: true }).fill("wrong-key");
  await page.getByRole("button", { name: "Sign in with the key" }).click();
  await expect(page.getByRole("main").getByRole("alert")).toHaveText(
    "The admin API key is not valid.",
  );
  await page.getByLabel("Admin API key", { exact: true }).fill(TEST_ADMIN_KEY);
  await page.getByRole("button", { name: "Sign in with the key" }).click();
  await expect(page.getByTestId("who")).toHaveText("Admin (API key)");

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login$/);
  await page.goto("/dashboard/agents");
  await expect(page).toHaveURL(/\/login$/);
});

test("an admin creates, edits and searches agents, with errors shown beside the fields", async ({
  page,
}) => {
  await signIn(page, adminWallet);
  await page.getByRole("link", { name: "Agents" }).click();
  await page.getByRole("link", { name: "New agent" }).click();

  await page.getByLabel("Agent ID").fill("Bad ID");
  await page.getByLabel("Temperature").fill("7");
  await page.getByRole("button", { name: "Create agent" }).click();
  await expect(page.locator("#aid-error")).toContainText("lowercase letter");
  await expect(page.locator("#temperature-error")).toHaveText(
    "must be a number from 0 to 2, or null",
  );
  await screenshot(page, "agent-form-errors");

  await page.getByLabel("Agent ID").fill("e2e-helper");
  await page.getByLabel("Name", { exact: true }).fill("E2E Helper");
  await page.getByLabel("Temperature").fill("0.5");
  await page.getByLabel("Messages per day").fill("40");
  await page.getByRole("button", { name: "Create agent" }).click();
  await expect(page).toHaveURL(/\/dashboard\/agents\/e2e-helper$/);
  await expect(page.getByRole("heading", { name: "E2E Helper" })).toBeVisible();

  await page.getByLabel("Name", { exact: true }).fill("E2E Helper Renamed");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("heading", { name: "E2E Helper Renamed" })).toBeVisible();

  await page.getByRole("link", { name: "Agents" }).click();
  await page.getByLabel("Search by ID or name").fill("renamed");
  await expect(page.getByTestId("agent-row-e2e-helper")).toBeVisible();
  await page.getByLabel("Search by ID or name").fill("no-such-agent-anywhere");
  await expect(page.getByText("No agent matches")).toBeVisible();
  await page.getByLabel("Search by ID or name").fill("");
  await expect(page.getByTestId("agent-row-e2e-helper")).toBeVisible();
  await screenshot(page, "agents");
});

test("chat streams the reply, and the quota bars count the message", async ({ page }) => {
  await api("/agents", {
    method: "POST",
    body: JSON.stringify({ aid: "e2e-chatter", quota: { message_limit_daily: 5 } }),
  });
  await signIn(page, adminWallet);
  await page.goto("/dashboard/agents/e2e-chatter");
  await expect(page.getByTestId("message_count_daily")).toHaveText("0 / 5");

  await page.getByLabel("Message", { exact: true }).fill("hello from the browser");
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByTestId("chat-log")).toContainText("echo: hello from the browser");
  await expect(page.getByTestId("message_count_daily")).toHaveText("1 / 5");

  await page.getByLabel("Message", { exact: true }).fill("and again");
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByTestId("chat-log")).toContainText(
    "echo: and again (after 2 earlier messages)",
  );
  await expect(page.getByTestId("message_count_daily")).toHaveText("2 / 5");
  await screenshot(page, "agent-chat");

  await page.getByLabel("New thread name").fill("side-topic");
  await page.getByRole("button", { name: "Open thread" }).click();
  await expect(page.getByLabel("Thread", { exact: true })).toHaveValue("side-topic");
  await expect(page.getByText("No messages in this thread yet.")).toBeVisible();
  await page.getByLabel("Message", { exact: true }).fill("a separate topic");
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByTestId("chat-log")).toContainText("echo: a separate topic");
  await expect(page.getByTestId("chat-log")).not.toContainText("after");

  page.once("dialog", (dialog) => dialog.accept());
  await page.getByRole("button", { name: "Reset counters" }).click();
  await expect(page.getByTestId("message_count_daily")).toHaveText("0 / 5");
  await expect(page.getByTestId("message_count_total")).toHaveText("0 / ∞");
});

test("an agent in autonomous mode shows its runs, and runs on demand", async ({ page }) => {
  await api("/agents", {
    method: "POST",
    body: JSON.stringify({
      aid: "e2e-runner",
      autonomous_enabled: true,
      autonomous_minutes: 60,
      autonomous_prompt: "Report status.",
    }),
  });
  await signIn(page, adminWallet);
  await page.goto("/dashboard/agents/e2e-runner");
  await expect(page.getByTestId("run-row").first()).toContainText("echo: Report status.");
  await expect(page.getByTestId("runs-summary")).toContainText("Every 60 min");
  await page.getByRole("button", { name: "Run now" }).click();
  await expect(page.getByTestId("run-row")).toHaveCount(2);
  await expect(page.getByTestId("run-row").first()).toContainText("manual");
  await screenshot(page, "agent-runs");
});

test("an admin creates a deployment and moves it through its statuses by signing", async ({
  page,
}) => {
  await signIn(page, adminWallet);
  await page.getByRole("link", { name: "Deployments" }).click();
  await page.getByLabel("Owner address").first().fill(userWallet.address);
  const form = page.getByRole("form", { name: "New deployment" });
  await form.getByLabel("Owner address").fill(userWallet.address);
  await form.getByLabel("Request ID (optional)").fill("e2e-life");
  await form.getByLabel("Currency").fill("USDC");
  for (const [name, value] of Object.entries(proposal)) {
    if (name !== "accept_currency")
      await form.getByLabel(name.replace("_", " "), { exact: true }).fill(String(value));
  }
  await form.getByRole("button", { name: "Create deployment" }).click();
  await expect(form.getByRole("status")).toContainText("(e2e-life)");
  await page.getByTestId("deployment-row-e2e-life").getByRole("link").click();

  // The wallet that signed in is still connected: it signs the status changes, as a worker would.
  await expect(page.getByText(`Signing as ${adminWallet.address}`)).toBeVisible();
  for (const status of ["pick_up", "deploying", "deployed", "generated_proof"]) {
    await page.getByLabel("New status").selectOption(status);
    if (status === "deployed")
      await page
        .getByLabel("Deployment details (JSON, optional)")
        .fill('{"endpoint":"https://node.example"}');
    await page.getByRole("button", { name: "Sign and apply" }).click();
    await expect(page.getByTestId("deployment-status")).toHaveText(status);
  }
  await expect(page.getByTestId("deployment-details")).toContainText("https://node.example");
  await expect(page.locator(".timeline li")).toHaveCount(4);
  await screenshot(page, "deployment-detail");
});

test("a wallet that is not an admin sees its own deployments only, and no admin page", async ({
  page,
}) => {
  const own = await (
    await api("/v1/deployments", {
      method: "POST",
      body: JSON.stringify({ request_id: "e2e-own", user_address: userWallet.address, proposal }),
    })
  ).json();
  await api("/v1/deployments", {
    method: "POST",
    body: JSON.stringify({ request_id: "e2e-theirs", user_address: adminWallet.address, proposal }),
  });

  await signIn(page, userWallet);
  await expect(page).toHaveURL(/\/dashboard\/deployments\?notice=admins-only/);
  await expect(page.getByRole("link", { name: "Agents" })).toHaveCount(0);
  await expect(page.getByTestId("deployment-row-e2e-own")).toBeVisible();
  await expect(page.getByTestId("deployment-row-e2e-theirs")).toHaveCount(0);
  await screenshot(page, "deployments-wallet");

  await page.goto("/dashboard/agents");
  await expect(page).toHaveURL(/\/dashboard\/deployments\?notice=admins-only/);
  await page.goto(`/dashboard/deployments/${own.id}`);
  await expect(page.getByTestId("deployment-status")).toHaveText("init");
  await page.goto(`/dashboard/deployments/${own.id + 1}`);
  await expect(page.getByText(/not found/)).toBeVisible();
});
