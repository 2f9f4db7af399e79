import AxeBuilder from "@axe-core/playwright";
import type { Locator, Page } from "@playwright/test";
import { expect, screenshot, test } from "./fixtures";
import { api, createAgents, navigate, scrollsSideways, signInWithKey, WIDTHS } from "./helpers";

/**
 * The admins page: the owner adds a person with the keyboard only, makes them a viewer's key
 * (shown once), and the viewer signs in with it, sees the list without a write control and is
 * refused an agent's change; back as the owner, the key is revoked, the role changed and the
 * person removed. Then the page at 1440 and 390 wide, and axe; and the other pages, where a
 * viewer finds no control to change anything and is told why, and the owner finds them.
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

/** Signs in on the sign-in page with a person's key; `who` is how the dashboard then names them. */
async function signInWithPersonalKey(page: Page, key: string, who: string) {
  await page.goto("/login");
  await page.getByLabel("Admin API key", { exact: true }).fill(key);
  await page.getByRole("button", { name: "Sign in with the key" }).click();
  await expect(page.getByTestId("who")).toHaveText(who);
}

async function signOut(page: Page) {
  await page.getByRole("button", { name: "Sign out", exact: true }).click();
  await expect(page).toHaveURL(/\/login/);
}

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
  await signOut(page);
  await signInWithPersonalKey(page, key, "Viewer (admin key)");
  await page.goto("/dashboard/admins");
  await expect(page.getByTestId("read-only")).toHaveText(
    "Only owners change admins: you are signed in as a viewer, so this page is read-only.",
  );
  await expect(row).toBeVisible();
  for (const name of WRITE_BUTTONS) {
    await expect(page.getByRole("button", { name, exact: true }), name).toHaveCount(0);
  }
  expect(await seriousFindings(page)).toEqual([]);

  // The agent page offers the viewer no Pause, and the service refuses the change all the same,
  // with its sentence; nothing changes.
  await page.goto("/dashboard/agents/zadmins");
  await expect(page.getByTestId("read-only")).toBeVisible();
  await expect(page.getByRole("button", { name: "Pause agent" })).toHaveCount(0);
  const refusal = await api("/agents", {
    method: "POST",
    headers: { authorization: `Bearer ${key}` },
    body: JSON.stringify({ aid: "zadmins", paused: true }),
  });
  expect(refusal.status).toBe(403);
  expect((await refusal.json()).detail).toBe(VIEWER_REFUSAL);
  expect((await (await api("/agents/zadmins")).json()).paused).toBe(false);

  // Back as the owner: the key revoked (it signs nothing in any more), a role, a removal.
  await signOut(page);
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

/** A dashboard page, what its changes are about, when its data is in, and its write controls. */
type WritePage = {
  path: () => string;
  what: string;
  loaded: (page: Page) => Locator;
  controls: (page: Page) => Locator[];
};

const button = (page: Page, name: string) => page.getByRole("button", { name, exact: true });

let webhookId = "";
const PRICED_MODEL = "viewer-check-model";

const WRITE_PAGES: WritePage[] = [
  {
    path: () => "/dashboard/agents",
    what: "agents",
    loaded: (page) => page.getByTestId("agent-row-zadmins"),
    controls: (page) => [page.getByRole("link", { name: "New agent" })],
  },
  {
    path: () => "/dashboard/agents/new",
    what: "agents",
    loaded: (page) => page.getByRole("heading", { name: "New agent" }),
    controls: (page) => [button(page, "Create agent")],
  },
  {
    path: () => "/dashboard/agents/zadmins",
    what: "agents",
    loaded: (page) => page.getByTestId("key-row").first(),
    controls: (page) =>
      [
        "Pause agent",
        "Delete agent",
        "Reset counters",
        "Make key",
        "Revoke",
        "Add model endpoint",
        "Add MCP server",
        "Run now",
        "Save changes",
      ].map((name) => button(page, name)),
  },
  {
    path: () => "/dashboard/webhooks",
    what: "webhooks",
    loaded: (page) => page.getByTestId("webhook-row").first(),
    controls: (page) => [button(page, "Add endpoint")],
  },
  {
    path: () => `/dashboard/webhooks/${webhookId}`,
    what: "webhooks",
    loaded: (page) => page.getByTestId("webhook-state"),
    controls: (page) =>
      ["Delete endpoint", "Send test event", "Disable", "Edit", "Rotate secret"].map((name) =>
        button(page, name),
      ),
  },
  {
    path: () => "/dashboard/prices",
    what: "prices",
    loaded: (page) => page.getByTestId("prices").getByText(PRICED_MODEL, { exact: true }),
    controls: (page) => [button(page, "Set price"), button(page, "Delete")],
  },
  {
    path: () => "/dashboard/deployments",
    what: "deployments",
    loaded: (page) => page.getByRole("heading", { name: "Deployments", level: 1 }),
    controls: (page) => [button(page, "Create deployment")],
  },
];

test("a viewer finds no control to change anything on the other pages, and is told why", async ({
  page,
}) => {
  // What the pages list: an agent key, a webhook endpoint and a price, each with its controls.
  const key = await api("/agents/zadmins/keys", {
    method: "POST",
    body: JSON.stringify({ name: "viewer check" }),
  });
  expect(key.status).toBe(201);
  const hook = await api("/webhooks", {
    method: "POST",
    body: JSON.stringify({ url: "https://hooks.example.com/viewer-check", events: ["run.failed"] }),
  });
  expect(hook.status).toBe(201);
  webhookId = (await hook.json()).id;
  const price = await api(`/prices/${PRICED_MODEL}`, {
    method: "PUT",
    body: JSON.stringify({ input_per_million: 1, output_per_million: 2 }),
  });
  expect(price.status).toBe(200);
  const person = await api("/admins", {
    method: "POST",
    body: JSON.stringify({
      name: "Vic Viewer",
      email: `vic.${Date.now()}@example.com`,
      role: "viewer",
    }),
  });
  expect(person.status).toBe(201);
  const made = await api(`/admins/${(await person.json()).id}/keys`, {
    method: "POST",
    body: JSON.stringify({ name: "pages", role: "viewer" }),
  });
  expect(made.status).toBe(201);
  const viewerKey: string = (await made.json()).key;

  // The owner finds every control, and no read-only sentence.
  await signInWithKey(page);
  for (const shown of WRITE_PAGES) {
    await page.goto(shown.path());
    await expect(shown.loaded(page), shown.path()).toBeVisible();
    for (const control of shown.controls(page))
      await expect(control.first(), `${shown.path()}: ${control}`).toBeVisible();
    await expect(page.getByTestId("read-only"), shown.path()).toHaveCount(0);
  }
  await expect(button(page, "Sign out everyone")).toHaveCount(1);
  await signOut(page);

  // The viewer, on a phone: the same pages, with the data and the sentence but no control.
  await page.setViewportSize({ width: 390, height: 844 });
  await signInWithPersonalKey(page, viewerKey, "Viewer (admin key)");
  for (const shown of WRITE_PAGES) {
    await page.goto(shown.path());
    await expect(shown.loaded(page), shown.path()).toBeVisible();
    await expect(page.getByTestId("read-only"), shown.path()).toHaveText(
      `Only operators and owners change ${shown.what}: you are signed in as a viewer, so this page is read-only.`,
    );
    for (const control of shown.controls(page))
      await expect(control, `${shown.path()}: ${control}`).toHaveCount(0);
    expect(await scrollsSideways(page), `${shown.path()} scrolls sideways`).toBe(false);
  }
  await expect(button(page, "Sign out everyone")).toHaveCount(0);

  // On the agent page, its configuration shows, fixed; and the viewer still chats with it.
  await page.goto("/dashboard/agents/zadmins");
  const configuration = page.getByRole("form", { name: "The agent's configuration" });
  await expect(configuration.getByLabel("Name", { exact: true })).toBeDisabled();
  expect(await seriousFindings(page)).toEqual([]);
  await screenshot(page, "agent-viewer-phone");
  await page.getByLabel("Message", { exact: true }).fill("hello as a viewer");
  await button(page, "Send").click();
  await expect(page.getByTestId("chat-log")).toContainText("echo: hello as a viewer");
});
