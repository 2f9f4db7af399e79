import { expect, screenshot, test } from "./fixtures";
import { createAgents, signInHere, signInWithKey } from "./helpers";

/**
 * A session that ends while a page is open (signed out in another tab, or every session ended
 * by an admin) takes that page to the sign-in page with a sentence, not to the API's refusal.
 */

test.beforeAll(() => createAgents([{ aid: "zsession" }, { aid: "zdeep-link" }]));

test("signing out in another tab sends this tab to sign-in with a sentence", async ({
  page,
  context,
}) => {
  await signInWithKey(page);
  await page.goto("/dashboard/agents");
  await expect(page.getByRole("heading", { name: "Agents" })).toBeVisible();

  const other = await context.newPage();
  await other.goto("/dashboard");
  await other.getByRole("button", { name: "Sign out", exact: true }).click();
  await expect(other).toHaveURL(/\/login$/);

  // The first tab asks for something: it is sent to sign in, and told why.
  await page.getByLabel("Quota", { exact: true }).selectOption("near");
  await expect(page).toHaveURL(/\/login\?ended=1&next=%2Fdashboard%2Fagents%3Fquota%3Dnear$/);
  await expect(page.getByTestId("session-ended")).toContainText("Your session has ended");
  await expect(page.getByText("ADMIN_API_KEY")).toHaveCount(0);
  await screenshot(page, "session-ended");
});

test("ending every session sends everyone to sign in again", async ({ page, browser }) => {
  const elsewhere = await browser.newContext({ baseURL: process.env.E2E_BASE_URL });
  const theirs = await elsewhere.newPage();
  try {
    await signInWithKey(theirs);
    await theirs.goto("/dashboard/agents/zsession");
    await expect(theirs.getByRole("heading", { name: "zsession" })).toBeVisible();

    await signInWithKey(page);
    await page.getByRole("button", { name: "Sign out everyone" }).click();
    const dialog = page.getByRole("dialog", { name: "Sign out everyone?" });
    await expect(dialog).toContainText("this one too");
    await dialog.getByRole("button", { name: "Sign out everyone" }).click();
    await expect(page).toHaveURL(/\/login\?ended=all$/);
    await expect(page.getByTestId("session-ended")).toContainText(
      "Every dashboard session was ended",
    );

    // The other browser: its next request finds the session gone; so does a reload.
    await theirs.reload();
    await expect(theirs).toHaveURL(/\/login\?ended=1&next=%2Fdashboard%2Fagents%2Fzsession$/);
    await expect(theirs.getByTestId("session-ended")).toBeVisible();
  } finally {
    await elsewhere.close();
  }
});

test("a link into the dashboard is followed after signing in, and only a dashboard path is", async ({
  page,
  context,
  baseURL,
}) => {
  await page.goto("/dashboard/agents/zdeep-link?from=mail");
  await expect(page).toHaveURL(/\/login\?next=%2Fdashboard%2Fagents%2Fzdeep-link%3Ffrom%3Dmail$/);
  await signInHere(page);
  await expect(page).toHaveURL(/\/dashboard\/agents\/zdeep-link\?from=mail$/);
  await expect(page.getByRole("heading", { name: "zdeep-link" })).toBeVisible();

  // Anything else given as `next` leads to the dashboard's start, never away from it.
  for (const next of [
    "https://evil.example/dashboard",
    "//evil.example/dashboard",
    "/\\evil.example/dashboard",
    "javascript:alert(1)",
    "/dashboard/../api/trpc/auth.signOut",
    "/dashboardx",
    "/login",
  ]) {
    // Away from the dashboard first: a dashboard page whose session goes would itself go to
    // sign in (with its own `next`), racing the page asked for here.
    await page.goto("/");
    await context.clearCookies();
    await page.goto(`/login?next=${encodeURIComponent(next)}`);
    await signInHere(page);
    expect(page.url(), next).toBe(`${baseURL}/dashboard`);
  }
});

test("after a session ends, signing in again goes back to the page it was on", async ({
  page,
  context,
}) => {
  await signInWithKey(page);
  await page.goto("/dashboard/agents?q=zdeep");
  await expect(page.getByTestId("agent-row-zdeep-link")).toBeVisible();
  const other = await context.newPage();
  await other.goto("/dashboard");
  await other.getByRole("button", { name: "Sign out", exact: true }).click();
  await expect(other).toHaveURL(/\/login$/);
  await other.close();

  await page.getByLabel("Quota", { exact: true }).selectOption("near");
  await expect(page).toHaveURL(/\/login\?ended=1&next=/);
  await expect(page.getByTestId("session-ended")).toBeVisible();
  await signInHere(page);
  await expect(page).toHaveURL(/\/dashboard\/agents\?q=zdeep&quota=near$/);
});
