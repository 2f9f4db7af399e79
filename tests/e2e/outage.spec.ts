import type { Page } from "@playwright/test";
import { TEST_ADMIN_KEY } from "../helpers/admin-key";
import { type RunningServer, startServer } from "../helpers/server";
import { expect, screenshot, test } from "./fixtures";

/**
 * The service stops while the dashboard is open, then comes back: the pages say so with Retry,
 * a failed save reads as a failure, links and filters never lead to the browser's error page,
 * and everything comes back by itself. A server of its own (the others' must not stop).
 */

let server: RunningServer;
let base: string;

test.beforeAll(async () => {
  server = await startServer({ SCHEDULER: "off" });
  const port = new URL(server.url).port;
  base = `http://localhost:${port}`;
  const created = await fetch(`${server.url}/agents`, {
    method: "POST",
    headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ aid: "outage-agent", name: "Outage Agent", autonomous_prompt: "Tick." }),
  });
  expect(created.status).toBe(201);
});
test.afterAll(() => server?.stop());

let stopped = false;

/** Stops the server (its data directory stays) and starts it again on the same port. */
async function stop() {
  stopped = true;
  await server.signal("SIGTERM");
}
async function start() {
  server = await startServer(
    { SCHEDULER: "off" },
    { port: Number(new URL(base).port), dataDir: server.dataDir },
  );
  stopped = false;
}
// A test that failed while the server was stopped leaves it running for the next.
test.afterEach(async () => {
  if (stopped) await start();
});

test("an outage shows Retry, failed saves read as failures, and no link leads to the browser's error page", async ({
  page,
}) => {
  test.setTimeout(180_000);
  await page.goto(`${base}/login`);
  await page.getByLabel("Admin API key", { exact: true }).fill(TEST_ADMIN_KEY);
  await page.getByRole("button", { name: "Sign in with the key" }).click();
  await expect(page.getByTestId("who")).toHaveText("Owner (ADMIN_API_KEY)");
  await page.goto(`${base}/dashboard/agents/outage-agent`);
  await expect(page.getByRole("heading", { name: "Outage Agent" })).toBeVisible();

  await stop();
  // A save that cannot reach the service says so, as an alert, not as a status.
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Not saved" })).toContainText(
    "The service cannot be reached",
  );
  await page.getByRole("button", { name: "Run now" }).click();
  await expect(page.getByTestId("run-now-error")).toContainText("The service cannot be reached");
  await screenshot(page, "outage-agent");

  // A link: the page waits for the service (it checks whether it is back with HEAD requests)
  // instead of loading the page in full, which would show the browser's error page.
  const waiting = page.waitForEvent(
    "requestfailed",
    (request) => request.method() === "HEAD" && request.url().includes("/dashboard/agents"),
  );
  await page
    .getByRole("navigation", { name: "Dashboard" })
    .getByRole("link", { name: "Agents" })
    .click();
  await waiting;
  expect(page.url()).toMatch(/^http:\/\/localhost:\d+\/dashboard\/agents\/outage-agent$/);
  await expect(page.getByRole("heading", { name: "Outage Agent" })).toBeVisible();

  await start();
  // The navigation goes on by itself once the service answers.
  await expect(page.getByRole("heading", { name: "Agents", exact: true })).toBeVisible({
    timeout: 30_000,
  });
  await expect(page.getByTestId("agent-row-outage-agent")).toBeVisible();

  await stop();
  // A filter: the list says the service cannot be reached, with Retry.
  await page.getByLabel("Quota", { exact: true }).selectOption("over");
  const notice = page.getByRole("alert").filter({ hasText: "Could not load agents" });
  await expect(notice).toContainText("The service cannot be reached");
  await expect(notice.getByRole("button", { name: /Retry/ })).toBeVisible();
  expect(page.url()).toMatch(/^http:\/\/localhost.*quota=over/);
  await screenshot(page, "outage-agents");

  await start();
  await page.getByLabel("Quota", { exact: true }).selectOption("");
  await expect(page.getByTestId("agent-row-outage-agent")).toBeVisible({ timeout: 30_000 });
  await expect(page.getByText("Could not load agents")).toHaveCount(0);
});

test("the overview says the service cannot be reached, and comes back by itself", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await page.goto(`${base}/login`);
  await page.getByLabel("Admin API key", { exact: true }).fill(TEST_ADMIN_KEY);
  await page.getByRole("button", { name: "Sign in with the key" }).click();
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  // The page has loaded in full (its charts' code included) before the service stops.
  await expect(page.locator("figure canvas")).toHaveCount(3);
  await stop();
  // The overview refreshes every 10 s; the failure shows with Retry, never "Failed to fetch".
  const notice = page.getByRole("alert").filter({ hasText: "Could not load the overview" });
  await expect(notice).toContainText("The service cannot be reached", { timeout: 30_000 });
  await expect(page.getByText("Failed to fetch")).toHaveCount(0);
  // Retry stays usable while the page keeps trying by itself (every 3 s, each with retries).
  const retry = notice.getByRole("button", { name: "Retry" });
  for (let i = 0; i < 8; i++) {
    expect(await retry.isEnabled()).toBe(true);
    await page.waitForTimeout(500);
  }
  await retry.click();
  await start();
  // Back by itself: no click after the service returns.
  await expect(notice).toHaveCount(0, { timeout: 30_000 });
  await expect(page.getByText("Healthy", { exact: true })).toBeVisible();
  await expect(page.locator("figure canvas")).toHaveCount(3);
});

async function signIn(page: Page) {
  await page.goto(`${base}/login`);
  await page.getByLabel("Admin API key", { exact: true }).fill(TEST_ADMIN_KEY);
  await page.getByRole("button", { name: "Sign in with the key" }).click();
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
}

const outageNotice = (page: Page) =>
  page.getByRole("alert").filter({ hasText: "The service cannot be reached" });

test("the overview shows no green Healthy beside an outage", async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page);
  await expect(page.getByText("Healthy", { exact: true })).toBeVisible();
  await stop();
  await expect(outageNotice(page).first()).toBeVisible({ timeout: 15_000 });
  await expect(page.getByText("Healthy", { exact: true })).toHaveCount(0);
  await expect(page.getByTestId("service-status")).toHaveText("Unreachable");
  await start();
  await expect(page.getByText("Healthy", { exact: true })).toBeVisible({ timeout: 30_000 });
  await expect(outageNotice(page)).toHaveCount(0);
});

test("pages that refresh nothing by themselves show an outage within seconds", async ({ page }) => {
  test.setTimeout(180_000);
  await signIn(page);
  for (const [path, heading] of [
    ["/dashboard/agents", "Agents"],
    ["/dashboard/prices", "Prices"],
  ]) {
    await page.goto(`${base}${path}`);
    await expect(page.getByRole("heading", { name: heading, exact: true })).toBeVisible();
    await stop();
    await expect(outageNotice(page).first(), path).toBeVisible({ timeout: 15_000 });
    await start();
    await expect(outageNotice(page), path).toHaveCount(0, { timeout: 30_000 });
  }
});

test("a request that gets no answer is shown at once, not after retries that cannot help", async ({
  page,
}) => {
  await signIn(page);
  await page.goto(`${base}/dashboard/agents`);
  await expect(page.getByTestId("agent-row-outage-agent")).toBeVisible();
  let attempts = 0;
  await page.route("**/api/trpc/*agents.list*", (route) => {
    attempts++;
    return route.abort("connectionrefused");
  });
  await page.getByLabel("Quota", { exact: true }).selectOption("near");
  await expect(page.getByRole("alert").filter({ hasText: "Could not load agents" })).toBeVisible();
  expect(attempts).toBe(1);
});

test("a failed save and a failed chat offer no Retry they do not have", async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page);
  await page.goto(`${base}/dashboard/agents/outage-agent`);
  await expect(page.getByRole("heading", { name: "Outage Agent" })).toBeVisible();
  await stop();
  await page.getByRole("button", { name: "Save changes" }).click();
  const notSaved = page.getByRole("alert").filter({ hasText: "Not saved" });
  await expect(notSaved).toContainText("The service cannot be reached");
  await expect(notSaved).not.toContainText("Retry");
  await page.getByLabel("Message", { exact: true }).fill("are you there?");
  await page.getByRole("button", { name: "Send" }).click();
  const notSent = page
    .getByRole("region", { name: "Chat" })
    .getByRole("alert")
    .filter({ hasText: "Not sent" });
  await expect(notSent).toContainText("cannot be reached");
  await expect(notSent).not.toContainText("Retry");
  await expect(page.getByLabel("Message", { exact: true })).toHaveValue("are you there?");
  await start();
});
