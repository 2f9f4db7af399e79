import { expect, test } from "./fixtures";
import { createAgents, signInWithKey } from "./helpers";

/**
 * Forms say what a field takes in full (its maximum too), in the form's words rather than the
 * API's field names, and take the focus to the first field to correct.
 */

test.beforeAll(() => createAgents([{ aid: "zforms" }]));

test("the agent form names a limit's maximum and its own fields, and focuses the first to correct", async ({
  page,
}) => {
  await signInWithKey(page);
  await page.goto("/dashboard/agents/zforms");
  await page.getByLabel("Messages per day").fill("12345678901234567890");
  await page.getByLabel("Run on a schedule").check();
  await page.getByRole("button", { name: "Save changes" }).click();

  const limitError = page.locator('[id="quota.message_limit_daily-error"]');
  await expect(limitError).toContainText("2,147,483,647");
  const promptError = page.locator("#autonomous_prompt-error");
  await expect(promptError).toContainText("Run on a schedule");
  await expect(promptError).not.toContainText("autonomous_enabled");
  // The first field to correct, in the order of the form, has the focus.
  await expect(page.getByLabel("Instruction for each run")).toBeFocused();
});

test("the price form focuses the first field to correct", async ({ page }) => {
  await signInWithKey(page);
  await page.goto("/dashboard/prices");
  const form = page.getByRole("form", { name: "Set a price" });
  await form.getByLabel("Output, per million tokens").fill("0.5");
  await form.getByRole("button", { name: "Set price" }).click();
  await expect(form.locator("#model-error")).toBeVisible();
  await expect(form.getByLabel("Model")).toBeFocused();
});

test("a wrong owner address says what is wrong in the page's words, beside its field", async ({
  page,
}) => {
  await signInWithKey(page);
  await page.goto("/dashboard/deployments");
  const owner = page.locator("#owner-filter");
  await owner.fill("nope");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page.locator("#owner-filter-error")).toContainText("Ethereum address");
  await expect(page.getByText(/user_address/)).toHaveCount(0);
  await expect(owner).toBeFocused();
  // A right one filters, and the field keeps it.
  const address = "0x0000000000000000000000000000000000000007";
  await owner.fill(address);
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(new RegExp(`owner=${address}`));
  await expect(page.locator("#owner-filter-error")).toHaveCount(0);
  await expect(owner).toHaveValue(address);
});
