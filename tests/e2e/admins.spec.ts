import AxeBuilder from "@axe-core/playwright";
import type { Locator, Page } from "@playwright/test";
import { expect, screenshot, test } from "./fixtures";
import { api, createAgents, navigate, scrollsSideways, signInWithKey, WIDTHS } from "./helpers";

/**
 * The admins page: the owner adds a person with the keyboard only, makes them a viewer's key
 * (shown once), and the viewer signs in with it, sees the list without a write control and is
 * refused an agent's change; back as the owner, the key is revoked, the role changed and the
 * person removed. Then the page at 1440 and 390 wide, and axe.
 */

const VIEWER_REFUSAL =
  "This needs the operator role (changing agents, keys, quotas, prices, webhooks and deployments); you are signed in as a viewer.";
const WRITE_BUTTONS = ["Add person", "Make key", "Change role", "Remove", "Revoke"];

test.beforeAll(async () => {
  await createAgents([{ aid: "zadmins" }]);
  // A person with a long email, a wallet and a key, for the phone's cards; once per server
  // (a worker started again after a failure finds them there: 409).
  const made = await api("/admins", {
    method: "POST",
    body: JSON.stringify({
      name: "Olga Operator-With-A-Rather-Long-Name",
      wallet: "0x8ba1f109551bD432803012645Ac136ddd64DBA72",
      email: "olga.operator.with.a.long.address@operations.example.com",
      role: "operator",
    }),
  });
  expect([201, 409]).toContain(made.status);
  if (made.status === 201) {
    const { id } = await made.json();
    const key = await api(`/admins/${id}/keys`, {
      method: "POST",
      body: JSON.stringify({ name: "deploy bot", role: "viewer" }),
    });
    expect(key.status).toBe(201);
  }
});

/** Presses Tab until `target` has the focus, as someone with only a keyboard gets to it. */
async function tabTo(page: Page, target: Locator) {
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press("Tab");
    if (await target.evaluate((element) => element === document.activeElement)) return;
  }
  throw new Error("Tab never reached the control");
}

async function seriousFindings(page: Page) {
  const results = await new AxeBuilder({ page }).setLegacyMode().analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

test("the owner adds a viewer and makes them a key; the viewer can change nothing", async ({
  page,
  context,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const email = `vera.${Date.now()}@example.com`;
  await signInWithKey(page);
  await navigate(page, "Admins");
  await expect(page).toHaveURL(/\/dashboard\/admins$/);
  await expect(page).toHaveTitle("Admins · Agent Service");

  // The keyboard only: Tab to Add person, a name with neither wallet nor email is refused beside
  // the wallet, which takes the focus; Tab on to the email, and Enter adds the person.
  await tabTo(page, page.getByRole("button", { name: "Add person" }));
  await page.keyboard.press("Enter");
  const form = page.getByRole("form", { name: "Add a person" });
  await expect(form.getByLabel("Name")).toBeFocused();
  await page.keyboard.type("Vera Viewer");
  await page.keyboard.press("Enter");
  await expect(form.getByRole("alert")).toContainText("Not added: ");
  await expect(form.getByLabel("Wallet (optional)")).toBeFocused();
  await expect(form).toContainText("a person signs in with a wallet, an email or both");
  await page.keyboard.press("Tab");
  await expect(form.getByLabel("Email (optional)")).toBeFocused();
  await page.keyboard.type(email);
  await page.keyboard.press("Enter");
  const done = page.getByTestId("admins-done");
  await expect(done).toHaveText("Vera Viewer added as a viewer.");
  await expect(done).toBeFocused();
  const row = page.getByTestId("admin-row").filter({ hasText: email });
  await expect(row.getByTestId("admin-role")).toHaveText("viewer");

  // A key: no role above the person's is offered; the key is shown once, with its copy button.
  await row.getByRole("button", { name: "Make key" }).click();
  const keyForm = page.getByRole("form", { name: "Make a key for Vera Viewer" });
  await expect(keyForm.getByLabel("Key name")).toBeFocused();
  await expect(keyForm.getByLabel("Key role").locator("option")).toHaveCount(1);
  await keyForm.getByLabel("Key name").fill("laptop");
  await keyForm.getByRole("button", { name: "Make key" }).click();
  await expect(done).toContainText("copy it now, it will not be shown again");
  await done.getByRole("button", { name: "Copy key" }).click();
  const key = await page.evaluate(() => navigator.clipboard.readText());
  expect(key).toMatch(/^admk_[0-9a-f]{12}_/);
  await expect(done.getByText(key)).toBeVisible();
  await expect(row.getByTestId("admin-key")).toContainText("laptop (viewer)");
  await page.reload();
  await expect(row.getByTestId("admin-key")).toContainText("laptop");
  await expect(page.getByText(key)).toHaveCount(0);

  // The viewer signs in with the key: the list without a write control, and why.
  await page.getByRole("button", { name: "Sign out", exact: true }).click();
  await expect(page).toHaveURL(/\/login$/);
  await page.getByLabel("Admin API key", { exact: true }).fill(key);
  await page.getByRole("button", { name: "Sign in with the key" }).click();
  await expect(page.getByTestId("who")).toHaveText("Viewer (admin key)");
  await page.goto("/dashboard/admins");
  await expect(page.getByTestId("read-only")).toHaveText(
    "Only owners change admins: you are signed in as a viewer, so this page is read-only.",
  );
  await expect(row).toBeVisible();
  for (const name of WRITE_BUTTONS) {
    await expect(page.getByRole("button", { name, exact: true }), name).toHaveCount(0);
  }
  expect(await seriousFindings(page)).toEqual([]);

  // An agent's change is refused, with the service's sentence, and nothing changes.
  await page.goto("/dashboard/agents/zadmins");
  await page.getByRole("button", { name: "Pause agent" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByRole("button", { name: "Pause agent" }).click();
  await expect(dialog.getByRole("alert")).toHaveText(VIEWER_REFUSAL);
  expect((await (await api("/agents/zadmins")).json()).paused).toBe(false);
  await page.keyboard.press("Escape");

  // Back as the owner: the key revoked (it signs nothing in any more), a role, a removal.
  await page.getByRole("button", { name: "Sign out", exact: true }).click();
  await expect(page).toHaveURL(/\/login/);
  await signInWithKey(page);
  await page.goto("/dashboard/admins");
  await row.getByRole("button", { name: "Revoke" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Revoke key" }).click();
  await expect(row.getByTestId("admin-key")).toHaveCount(0);
  await expect(row).toContainText("none");
  const refused = await api("/admins", { headers: { authorization: `Bearer ${key}` } });
  expect(refused.status).toBe(401);

  await row.getByRole("button", { name: "Change role" }).click();
  const change = page.getByRole("dialog", { name: "Change Vera Viewer's role?" });
  await change.getByLabel("New role").selectOption("operator");
  await change.getByRole("button", { name: "Change role" }).click();
  await expect(row.getByTestId("admin-role")).toHaveText("operator");

  await row.getByRole("button", { name: "Remove" }).click();
  await page
    .getByRole("dialog", { name: "Remove Vera Viewer?" })
    .getByRole("button", { name: "Remove person" })
    .click();
  await expect(row).toHaveCount(0);
});

for (const { name, viewport, suffix } of WIDTHS) {
  test(`the admins page fits and passes axe, ${name}`, async ({ page }) => {
    await page.setViewportSize(viewport);
    await signInWithKey(page);
    await page.goto("/dashboard/admins");
    const olga = page.getByTestId("admin-row").filter({ hasText: "Olga" });
    await expect(olga.getByTestId("admin-key")).toContainText("deploy bot (viewer)");
    expect(await scrollsSideways(page)).toBe(false);
    expect(await seriousFindings(page)).toEqual([]);
    await screenshot(page, `admins-${suffix}`);

    // Each form open in turn: the person's, then the key's (which takes its place).
    await page.getByRole("button", { name: "Add person" }).click();
    await expect(page.getByRole("form", { name: "Add a person" })).toBeVisible();
    expect(await scrollsSideways(page)).toBe(false);
    expect(await seriousFindings(page)).toEqual([]);
    await olga.getByRole("button", { name: "Make key" }).click();
    await expect(page.getByRole("form", { name: /^Make a key for Olga/ })).toBeVisible();
    expect(await scrollsSideways(page)).toBe(false);
    expect(await seriousFindings(page)).toEqual([]);
    await screenshot(page, `admins-forms-${suffix}`);
  });
}
