import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect, screenshot, test } from "./fixtures";
import { api, navigate, scrollsSideways, signInWithKey, WIDTHS } from "./helpers";

/**
 * The audit log's page: changes made through the REST API (agent `zaudit` created, its rate
 * limit raised, a key made and revoked) listed newest first, filtered by target and action in
 * the URL, an update's fields before and after, and the link to the agent.
 */

let keyId = "";

/** A REST change as the admin, with a request id of its own; fails the test if refused. */
async function change(path: string, method: string, requestId: string, body?: unknown) {
  const response = await api(path, {
    method,
    headers: { "x-request-id": requestId },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(response.status, `${method} ${path}`).toBeLessThan(300);
  return response;
}

test.beforeAll(async () => {
  // Once per server: a worker started again after a failure finds them there.
  const recorded = await (await api("/audit?target=agent:zaudit")).json();
  if (recorded.entries.length > 0) {
    const keys = await (await api("/audit?action=agent_key.revoked&limit=500")).json();
    const ours = keys.entries.find((entry: { target: string }) =>
      entry.target.startsWith("agent_key:zaudit/"),
    );
    keyId = ours.target.split("/")[1];
    return;
  }
  await change("/agents", "POST", "e2e-audit-create", { aid: "zaudit", rate_limit_rpm: 30 });
  await change("/agents", "POST", "e2e-audit-update", { aid: "zaudit", rate_limit_rpm: 90 });
  const key = await change("/agents/zaudit/keys", "POST", "e2e-audit-key", { name: "audit app" });
  keyId = (await key.json()).id;
  await change(`/agents/zaudit/keys/${keyId}`, "DELETE", "e2e-audit-revoke");
});

const entries = (page: Page) => page.getByTestId("audit-list").getByTestId("audit-entry");

test("changes newest first, filtered in the URL, an update's fields, the agent's link", async ({
  page,
}) => {
  await signInWithKey(page);
  await navigate(page, "Audit log");
  await expect(page).toHaveURL(/\/dashboard\/audit$/);
  await expect(page).toHaveTitle("Audit log · Agent Service");

  // The newest first: this sign-in, then the four changes above (nothing else has changed since).
  const newest = entries(page);
  await expect(newest.nth(0).getByTestId("audit-action")).toHaveText("sign_in.succeeded");
  await expect(newest.nth(1).getByTestId("audit-action")).toHaveText("agent_key.revoked");
  await expect(newest.nth(1)).toContainText(`agent_key:zaudit/${keyId}`);
  await expect(newest.nth(1)).toContainText("by admin-key via key");
  await expect(newest.nth(2).getByTestId("audit-action")).toHaveText("agent_key.created");
  await expect(newest.nth(3).getByTestId("audit-action")).toHaveText("agent.updated");
  await expect(newest.nth(4).getByTestId("audit-action")).toHaveText("agent.created");
  await expect(newest.nth(1).locator("time")).toHaveAttribute("title", /^\d{4}-\d\d-\d\d /);

  // The target filter follows typing, into the URL; then the action applies at once.
  await page.getByLabel("Target").fill("agent:zaudit");
  await expect(page).toHaveURL(/\?target=agent%3Azaudit$/);
  await expect(entries(page)).toHaveCount(2);
  await expect(entries(page).getByTestId("audit-action")).toHaveText([
    "agent.updated",
    "agent.created",
  ]);
  await page.getByLabel("Action").selectOption("agent.updated");
  await expect(page).toHaveURL(/action=agent.updated/);
  await expect(page).toHaveURL(/target=agent%3Azaudit/);
  await expect(entries(page)).toHaveCount(1);

  // A reload keeps the filters; an action with no match says so, and Back returns.
  await page.reload();
  await expect(page.getByLabel("Target")).toHaveValue("agent:zaudit");
  await expect(page.getByLabel("Action")).toHaveValue("agent.updated");
  await expect(entries(page)).toHaveCount(1);
  await page.getByLabel("Action").selectOption("agent.deleted");
  await expect(page.getByText("No changes match these filters.")).toBeVisible();
  await page.goBack();
  await expect(page.getByLabel("Action")).toHaveValue("agent.updated");

  // The update, opened with the keyboard: rate_limit_rpm from 30 to 90, and its request id.
  const update = entries(page).first();
  await expect(update).toHaveCount(1);
  await expect(update).toContainText("e2e-audit-update");
  await expect(update.getByRole("button", { name: "Copy request ID" })).toBeVisible();
  const fields = update.getByTestId("audit-field");
  await expect(fields.first()).toBeHidden();
  await update.getByText("Changes", { exact: true }).focus();
  await page.keyboard.press("Enter");
  const limit = fields.filter({ hasText: "rate_limit_rpm" });
  await expect(limit).toHaveCount(1);
  await expect(limit.getByRole("cell").nth(1)).toContainText("30");
  await expect(limit.getByRole("cell").nth(2)).toContainText("90");
  // Only what differs: the agent's id stayed the same.
  await expect(fields.filter({ hasText: /^aid/ })).toHaveCount(0);

  const findings = await new AxeBuilder({ page }).setLegacyMode().analyze();
  const serious = findings.violations.filter((v) =>
    ["serious", "critical"].includes(`${v.impact}`),
  );
  expect(serious.map((v) => `${v.id}: ${v.help}`)).toEqual([]);

  await update.getByRole("link", { name: "agent:zaudit" }).click();
  await expect(page).toHaveURL(/\/dashboard\/agents\/zaudit$/);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("zaudit");
});

for (const { name, viewport, suffix } of WIDTHS) {
  test(`the audit log fits, ${name}`, async ({ page }) => {
    await page.setViewportSize(viewport);
    await signInWithKey(page);
    await page.goto("/dashboard/audit?target=agent:zaudit");
    await expect(entries(page)).toHaveCount(2);
    // The creation shows the whole agent; the update its fields: long JSON must wrap.
    for (const entry of await entries(page).all()) {
      await entry.getByText("Changes", { exact: true }).click();
    }
    await expect(entries(page).nth(0).getByTestId("audit-field").first()).toBeVisible();
    await expect(entries(page).nth(1).locator("pre")).toBeVisible();
    expect(await scrollsSideways(page)).toBe(false);
    await screenshot(page, `audit-${suffix}`);
  });
}
