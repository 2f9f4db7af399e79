import { expect, test } from "./fixtures";
import { signInWithKey } from "./helpers";

/** The manual light/dark choice and the link to the API docs, in the dashboard's frame. */

const background = (page: import("@playwright/test").Page) =>
  page.evaluate(() => getComputedStyle(document.body).backgroundColor);

test("the theme can be chosen against the system's, is kept across pages and reloads, and the API docs are a link away", async ({
  page,
}) => {
  await page.emulateMedia({ colorScheme: "light" });
  await signInWithKey(page);
  await page.goto("/dashboard/agents");
  const light = await background(page);
  expect(light).toBe("rgb(246, 247, 249)");

  await page.getByLabel("Theme").selectOption("dark");
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  expect(await background(page)).toBe("rgb(15, 17, 21)");
  // Kept: the next page is served dark from its first paint (the server reads the cookie).
  const served = await page.request.get("/dashboard/prices");
  expect(await served.text()).toMatch(/<html[^>]*data-theme="dark"/);
  await page.reload();
  expect(await background(page)).toBe("rgb(15, 17, 21)");
  await expect(page.getByLabel("Theme")).toHaveValue("dark");

  // Back to the system's scheme, which is light here.
  await page.getByLabel("Theme").selectOption("system");
  await expect(page.locator("html")).not.toHaveAttribute("data-theme", /.+/);
  expect(await background(page)).toBe(light);

  const docs = page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", {
    name: "API docs",
  });
  await expect(docs).toHaveAttribute("href", "/docs");
});
