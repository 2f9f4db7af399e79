import { expect, test } from "./fixtures";
import { scrollsSideways, signInWithKey } from "./helpers";

/**
 * An address that leads nowhere: under /dashboard, a page inside the dashboard's frame (its
 * navigation stays); anywhere else, a plain page in the service's own look. Both answer 404.
 */

test("an unknown dashboard address shows a not-found page inside the dashboard", async ({
  page,
}) => {
  await signInWithKey(page);
  for (const path of ["/dashboard/no-such-page", "/dashboard/agents/zexists/no-such-tab"]) {
    const response = await page.goto(path);
    expect(response?.status(), path).toBe(404);
    await expect(page.getByRole("heading", { name: "Page not found", level: 1 })).toBeVisible();
    await expect(page).toHaveTitle("Page not found · Agent Service");
    await expect(page.getByRole("navigation", { name: "Dashboard" })).toBeAttached();
    await expect(page.getByTestId("who")).toHaveText("Owner (ADMIN_API_KEY)");
    await expect(page.getByRole("main").getByRole("link", { name: "Overview" })).toBeVisible();
  }
});

test("an unknown address elsewhere shows a plain page in the service's look", async ({ page }) => {
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 844 });
    const response = await page.goto("/no-such-page");
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "Page not found", level: 1 })).toBeVisible();
    await expect(page.getByRole("link", { name: "Open the dashboard" })).toHaveAttribute(
      "href",
      "/dashboard",
    );
    await expect(page).toHaveTitle("Page not found · Agent Service");
    // The service's font, not the browser's default serif.
    const font = await page.evaluate(() => getComputedStyle(document.body).fontFamily);
    expect(font).toContain("system-ui");
    expect(await scrollsSideways(page)).toBe(false);
  }
});
