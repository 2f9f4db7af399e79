import { TEST_ADMIN_KEY } from "../helpers/admin-key";
import { sampleProposal } from "../helpers/proposal";
import { expect, screenshot, test } from "./fixtures";
import { api, navigate, scrollsSideways, signInWithWallet, WIDTHS } from "./helpers";
import { adminWallet, userWallet } from "./wallets";

/** The dashboard's main flows, driven in real Chromium with the injected test wallet, laptop and phone. */

const PROPOSAL_LABELS: Record<string, string> = {
  init_cost: "Initial cost",
  maintenance_cost: "Maintenance cost",
  pay_period: "Pay period",
  cost: "Cost",
  fit: "Fit",
  throughput: "Throughput",
  sla: "SLA",
  error_rate: "Error rate",
  rank: "Rank",
};

for (const { name, viewport, suffix } of WIDTHS) {
  test.describe(name, () => {
    test.use({ viewport });

    test("an admin signs in with a wallet and sees the overview", async ({ page }) => {
      await signInWithWallet(page, adminWallet);
      await expect(page).toHaveURL(/\/dashboard$/);
      await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
      await expect(page.getByText("Healthy", { exact: true })).toBeVisible();
      expect(await scrollsSideways(page)).toBe(false);
      await screenshot(page, `overview-${suffix}`);
    });

    test("the admin key signs in too, and a wrong one is refused", async ({ page }) => {
      await page.goto("/login");
      await screenshot(page, `login-${suffix}`);
      await page.getByLabel("Admin API key", { exact: true }).fill("wrong-key");
      await page.getByRole("button", { name: "Sign in with the key" }).click();
      await expect(page.getByRole("main").getByRole("alert")).toHaveText(
        "The admin API key is not valid.",
      );
      await page.getByLabel("Admin API key", { exact: true }).fill(TEST_ADMIN_KEY);
      await page.getByRole("button", { name: "Sign in with the key" }).click();
      await expect(page.getByTestId("who")).toBeAttached();
      await expect(page.getByTestId("who")).toHaveText("Owner (ADMIN_API_KEY)");

      if (await page.getByRole("button", { name: "Menu" }).isVisible())
        await page.getByRole("button", { name: "Menu" }).click();
      await page.getByRole("button", { name: "Sign out", exact: true }).click();
      await expect(page).toHaveURL(/\/login$/);
      // Signed out, a dashboard page leads to sign in, and back there after.
      await page.goto("/dashboard/agents");
      await expect(page).toHaveURL(/\/login\?next=%2Fdashboard%2Fagents$/);
    });

    test("an admin creates, edits and searches agents, with errors beside the fields", async ({
      page,
    }) => {
      const aid = `e2e-helper-${suffix}`;
      await signInWithWallet(page, adminWallet);
      await navigate(page, "Agents");
      await page.getByRole("link", { name: "New agent" }).click();
      await expect(page).toHaveTitle("New agent · Agent Service");

      await page.getByLabel("Agent ID").fill("Bad ID");
      await page.getByLabel("Temperature").fill("7");
      await page.getByRole("button", { name: "Create agent" }).click();
      await expect(page.locator("#aid-error")).toContainText("lowercase letter");
      await expect(page.locator("#temperature-error")).toHaveText(
        "must be a number from 0 to 2, or left empty",
      );
      await expect(
        page.getByRole("alert").filter({ hasText: "Not saved: correct the fields marked." }),
      ).toBeVisible();
      expect(await scrollsSideways(page)).toBe(false);
      await screenshot(page, `agent-form-errors-${suffix}`);

      await page.getByLabel("Agent ID").fill(aid);
      await page.getByLabel("Name", { exact: true }).fill("E2E Helper");
      await page.getByLabel("Temperature").fill("0.5");
      await page.getByLabel("Messages per day").fill("40");
      await page.getByRole("button", { name: "Create agent" }).click();
      await expect(page).toHaveURL(new RegExp(`/dashboard/agents/${aid}\\?created=1$`));
      await expect(page.getByRole("heading", { name: "E2E Helper" })).toBeVisible();
      await expect(page.getByText("Agent created.")).toBeVisible();
      await expect(page).toHaveTitle(`Agent ${aid} · Agent Service`);

      await page.getByLabel("Name", { exact: true }).fill("E2E Helper Renamed");
      await page.getByRole("button", { name: "Save changes" }).click();
      await expect(page.getByRole("heading", { name: "E2E Helper Renamed" })).toBeVisible();
      await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();

      await navigate(page, "Agents");
      await page.getByLabel("Search by ID or name").fill(`renamed`);
      await expect(page.getByTestId(`agent-row-${aid}`)).toBeVisible();
      await page.getByLabel("Search by ID or name").fill("no-such-agent-anywhere");
      await expect(page.getByText("No agent matches")).toBeVisible();
      await page.getByLabel("Search by ID or name").fill("");
      await expect(page.getByTestId(`agent-row-${aid}`)).toBeVisible();
      expect(await scrollsSideways(page)).toBe(false);
      await screenshot(page, `agents-${suffix}`);
    });

    test("chat streams the reply, and the quota bars count the message", async ({ page }) => {
      const aid = `e2e-chatter-${suffix}`;
      await api("/agents", {
        method: "POST",
        body: JSON.stringify({ aid, quota: { message_limit_daily: 5 } }),
      });
      await signInWithWallet(page, adminWallet);
      await page.goto(`/dashboard/agents/${aid}`);
      await expect(page.getByTestId("message_count_daily")).toHaveText("0 / 5");

      await page.getByLabel("Message", { exact: true }).fill("hello from the browser");
      await page.getByRole("button", { name: "Send" }).click();
      await expect(page.getByTestId("chat-log")).toContainText("echo: hello from the browser");
      await expect(page.getByTestId("message_count_daily")).toHaveText("1 / 5");

      // Enter sends too.
      await page.getByLabel("Message", { exact: true }).fill("and again");
      await page.getByLabel("Message", { exact: true }).press("Enter");
      await expect(page.getByTestId("chat-log")).toContainText(
        "echo: and again (after 2 earlier messages)",
      );
      await expect(page.getByTestId("message_count_daily")).toHaveText("2 / 5");
      expect(await scrollsSideways(page)).toBe(false);
      await screenshot(page, `agent-chat-${suffix}`);

      await page.getByLabel("New thread name").fill("side-topic");
      await page.getByRole("button", { name: "Open thread" }).click();
      await expect(page.getByLabel("Thread", { exact: true })).toHaveValue("side-topic");
      await expect(page.getByText("No messages in this thread yet.")).toBeVisible();
      await page.getByLabel("Message", { exact: true }).fill("a separate topic");
      await page.getByRole("button", { name: "Send" }).click();
      await expect(page.getByTestId("chat-log")).toContainText("echo: a separate topic");
      await expect(page.getByTestId("chat-log")).not.toContainText("after");

      await page.getByRole("button", { name: "Reset counters" }).click();
      const dialog = page.getByRole("dialog", { name: `Reset the counters of ${aid}?` });
      await expect(dialog).toBeVisible();
      await screenshot(page, `confirm-dialog-${suffix}`);
      // Only the chosen counters, and none until one is ticked: the total is kept.
      await expect(dialog.getByRole("button", { name: "Reset counters" })).toBeDisabled();
      await dialog.getByLabel("Messages today").check();
      await dialog.getByRole("button", { name: "Reset 1 counter" }).click();
      await expect(dialog).toBeHidden();
      await expect(page.getByTestId("message_count_daily")).toHaveText("0 / 5");
      await expect(page.getByTestId("message_count_total")).not.toHaveText("0 / ∞");
      await page.getByRole("button", { name: "Reset counters" }).click();
      for (const box of await dialog.getByRole("checkbox").all()) await box.check();
      await dialog.getByRole("button", { name: "Reset all counters" }).click();
      await expect(dialog).toBeHidden();
      await expect(page.getByTestId("message_count_total")).toHaveText("0 / ∞");
    });

    test("an admin makes an agent key, sees its conversation, and revokes it", async ({ page }) => {
      const aid = `e2e-keyed-${suffix}`;
      await api("/agents", { method: "POST", body: JSON.stringify({ aid }) });
      await signInWithWallet(page, adminWallet);
      await page.goto(`/dashboard/agents/${aid}`);
      await page.getByLabel("Key name").fill("partner app");
      await page.getByRole("button", { name: "Make key" }).click();
      const shown = page.getByTestId("new-key");
      await expect(shown).toContainText("it is not shown again");
      const key = (await shown.locator("code").textContent()) ?? "";
      expect(key).toMatch(/^ak_[0-9a-f]{12}_/);

      // The partner chats with its key; the admin sees its thread, named after the key.
      const chat = await fetch(`${process.env.E2E_BASE_URL}/${aid}/chat?q=partner+question`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(chat.status).toBe(200);
      await page.reload();
      const row = page.getByTestId("thread-row").filter({ hasText: "key 'partner app'" });
      await expect(row).toBeVisible();
      await row.getByRole("button", { name: "default" }).click();
      await expect(page.getByTestId("thread-log")).toContainText("partner question");
      await expect(page.getByTestId("key-row")).toContainText("partner app");
      expect(await scrollsSideways(page)).toBe(false);
      await screenshot(page, `agent-keys-${suffix}`);

      await page.getByTestId("key-row").getByRole("button", { name: "Revoke" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Revoke key" }).click();
      await expect(page.getByTestId("key-row")).toHaveCount(0);
      const refused = await fetch(`${process.env.E2E_BASE_URL}/${aid}/chat?q=again`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(refused.status).toBe(401);
    });

    test("an agent in autonomous mode shows its runs, and runs on demand", async ({ page }) => {
      const aid = `e2e-runner-${suffix}`;
      await api("/agents", {
        method: "POST",
        body: JSON.stringify({
          aid,
          autonomous_enabled: true,
          autonomous_minutes: 60,
          autonomous_prompt: "Report status.",
        }),
      });
      await signInWithWallet(page, adminWallet);
      await page.goto(`/dashboard/agents/${aid}`);
      await expect(page.getByTestId("run-row").first()).toContainText("echo: Report status.");
      await expect(page.getByTestId("runs-summary")).toContainText("Every 60 min");
      await page.getByRole("button", { name: "Run now" }).click();
      await expect(page.getByTestId("run-row")).toHaveCount(2);
      await expect(page.getByTestId("run-row").first()).toContainText("manual");
      await screenshot(page, `agent-runs-${suffix}`);
    });

    test("an admin creates a deployment and moves it through its statuses by signing", async ({
      page,
    }) => {
      const requestId = `e2e-life-${suffix}`;
      await signInWithWallet(page, adminWallet);
      await navigate(page, "Deployments");
      const form = page.getByRole("form", { name: "New deployment" });
      await form.getByLabel("Owner address").fill(userWallet.address);
      await form.getByLabel("Request ID (optional)").fill(requestId);
      await form.getByLabel("Currency").fill("USDC");
      for (const [field, value] of Object.entries(sampleProposal)) {
        if (field !== "accept_currency")
          await form
            .getByLabel(PROPOSAL_LABELS[field] as string, { exact: true })
            .fill(String(value));
      }
      await form.getByRole("button", { name: "Create deployment" }).click();
      await expect(form.getByRole("status")).toContainText(`(${requestId})`);
      await page.getByTestId(`deployment-row-${requestId}`).getByRole("link").click();

      // The wallet that signed in is still connected: it signs the status changes, as a worker would.
      await expect(page.getByText(`Signing as ${adminWallet.address}`)).toBeVisible();
      for (const status of ["pick_up", "deploying", "deployed", "generated_proof"]) {
        await page.getByLabel("New status").selectOption(status);
        if (status === "deployed")
          await page
            .getByLabel("Deployment details (JSON, optional)")
            .fill('{"endpoint":"https://node.example"}');
        await page.getByRole("button", { name: "Sign and apply" }).click();
        await expect(page.getByTestId("deployment-status")).toHaveAttribute("data-status", status);
      }
      await expect(page.getByTestId("deployment-details")).toContainText("https://node.example");
      await expect(page.getByRole("region", { name: "History" }).getByRole("listitem")).toHaveCount(
        4,
      );
      // An admin's changes assign no worker: the record says so instead of "not picked up yet".
      await expect(page.getByTestId("deployment-worker")).toHaveText(
        "None assigned (its status was changed by an admin).",
      );
      expect(await scrollsSideways(page)).toBe(false);
      await screenshot(page, `deployment-detail-${suffix}`);
    });

    test("a wallet that is not an admin lands on its own deployments, and sees no admin page", async ({
      page,
    }) => {
      const own = await (
        await api("/v1/deployments", {
          method: "POST",
          body: JSON.stringify({
            request_id: `e2e-own-${suffix}`,
            user_address: userWallet.address,
            proposal: sampleProposal,
          }),
        })
      ).json();
      await api("/v1/deployments", {
        method: "POST",
        body: JSON.stringify({
          request_id: `e2e-theirs-${suffix}`,
          user_address: adminWallet.address,
          proposal: sampleProposal,
        }),
      });

      await signInWithWallet(page, userWallet);
      await expect(page).toHaveURL(/\/dashboard\/deployments$/);
      await expect(page.getByText("are for admins")).toHaveCount(0);
      await expect(page.getByRole("link", { name: "Agents" })).toHaveCount(0);
      await expect(page.getByTestId(`deployment-row-e2e-own-${suffix}`)).toBeVisible();
      await expect(page.getByTestId(`deployment-row-e2e-theirs-${suffix}`)).toHaveCount(0);
      expect(await scrollsSideways(page)).toBe(false);
      await screenshot(page, `deployments-wallet-${suffix}`);

      await page.goto("/dashboard/agents");
      await expect(page).toHaveURL(/\/dashboard\/deployments\?notice=admins-only/);
      await expect(page.getByText("are for admins")).toBeVisible();
      await page.goto("/dashboard");
      await expect(page).toHaveURL(/\/dashboard\/deployments$/);
      await page.goto(`/dashboard/deployments/${own.id}`);
      await expect(page.getByTestId("deployment-status")).toHaveAttribute("data-status", "init");
      await page.goto(`/dashboard/deployments/${own.id + 1}`);
      await expect(page.getByText(/not found/)).toBeVisible();
    });
  });
}

test("the interactive API docs load from the service itself, under its CSP", async ({ page }) => {
  const external: string[] = [];
  page.on("request", (request) => {
    if (!request.url().startsWith(process.env.E2E_BASE_URL ?? "")) external.push(request.url());
  });
  await page.goto("/docs");
  await expect(page.getByRole("heading", { name: /Agent Service/ })).toBeVisible();
  await expect(page.getByText("/agents/{aid}/keys").first()).toBeVisible();
  await expect(page.getByRole("button", { name: /Authorize/ })).toBeVisible();
  expect(external).toEqual([]);
  await screenshot(page, "api-docs");
});
