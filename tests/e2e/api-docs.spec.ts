import { expect, test } from "./fixtures";

/** /docs: Swagger UI over the served document, its operations grouped by router, in both schemes. */

test("groups the operations under one tag per router, and follows the system's dark mode", async ({
  page,
}) => {
  await page.goto("/docs");
  const tags = page.locator(".swagger-ui .opblock-tag");
  await expect(tags.first()).toBeVisible();
  expect(await tags.count()).toBeGreaterThanOrEqual(10);
  await expect(page.locator(".swagger-ui .opblock-tag", { hasText: "agent keys" })).toBeVisible();
  const filter = () => page.evaluate(() => getComputedStyle(document.body).filter);
  expect(await filter()).toBe("none");
  await page.emulateMedia({ colorScheme: "dark" });
  expect(await filter()).toContain("invert");
});
