import AxeBuilder from "@axe-core/playwright";
import { sampleProposal } from "../helpers/proposal";
import { expect, screenshot, test } from "./fixtures";
import { api, scrollsSideways, signInWithKey } from "./helpers";

/**
 * An admin signed in with the key changes and cancels a deployment from its page, with no
 * wallet: the panel offers the status machine's next statuses, cancelling asks first, and the
 * history says the admin did it. A long history is read a page at a time, newest first.
 */

async function newDeployment(requestId: string): Promise<number> {
  const made = await api("/v1/deployments", {
    method: "POST",
    body: JSON.stringify({
      request_id: requestId,
      user_address: "0x0000000000000000000000000000000000000007",
      proposal: sampleProposal,
    }),
  });
  return (await made.json()).id;
}

for (const width of [1440, 390]) {
  test(`an admin with the key moves and cancels a deployment, no wallet asked, at ${width} px`, async ({
    page,
  }) => {
    await page.setViewportSize({ width, height: 900 });
    const id = await newDeployment(`admin-change-${width}`);
    await signInWithKey(page);
    await page.goto(`/dashboard/deployments/${id}`);
    const panel = page.getByRole("region", { name: "Change status" });
    await expect(panel).toContainText("no wallet is needed");
    await expect(page.getByText("No wallet was found")).toHaveCount(0);

    await panel.getByLabel("New status").selectOption("pick_up");
    await panel.getByRole("button", { name: "Apply" }).click();
    await expect(panel.getByRole("status").filter({ hasText: "Moved to" })).toBeVisible();
    await expect(page.getByTestId("deployment-status")).toContainText(/pick/i);

    await panel.getByRole("button", { name: "Cancel deployment" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Cancel deployment" }).click();
    await expect(page.getByTestId("deployment-status")).toContainText(/cancel/i);
    await expect(page.getByTestId("no-change")).toContainText("is final");
    const history = page.getByRole("region", { name: "History" });
    await expect(history.getByText("changed by the admin")).toHaveCount(2);
    const record = await (await api(`/v1/deployments/${id}`)).json();
    expect(record.history.map((h: { signer_address: string }) => h.signer_address)).toEqual([
      "admin",
      "admin",
    ]);
    await screenshot(page, `deployment-admin-${width}`);
  });
}

for (const width of [1440, 390]) {
  test(`the history of 30 changes pages, newest first, at ${width} px`, async ({ page }) => {
    await page.setViewportSize({ width, height: 900 });
    const id = await newDeployment(`long-history-${width}`);
    for (let step = 1; step <= 30; step++) {
      const changed = await api(`/v1/deployments/${id}/status`, {
        method: "POST",
        body: JSON.stringify({
          status: "pick_up",
          deployment_details: { step, note: `a-long-unbroken-note-for-step-${step}-`.repeat(3) },
        }),
      });
      expect(changed.status).toBe(200);
    }
    await signInWithKey(page);
    await page.goto(`/dashboard/deployments/${id}`);
    const history = page.getByRole("region", { name: "History" });
    const entries = history.getByTestId("deployment-history").getByRole("listitem");
    await expect(entries).toHaveCount(25);
    await expect(entries.first()).toContainText('"step":30');
    const pager = history.getByRole("navigation", { name: "Pages of changes" });
    await expect(pager).toContainText("1–25 of 30 changes · page 1 of 2");
    const axe = await new AxeBuilder({ page }).setLegacyMode().analyze();
    expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical")).toEqual(
      [],
    );
    expect(await scrollsSideways(page)).toBe(false);

    await pager.getByRole("button", { name: "Next page" }).click();
    await expect(pager).toContainText("26–30 of 30 changes · page 2 of 2");
    await expect(entries).toHaveCount(5);
    await expect(entries.last()).toContainText('"step":1');
    expect(await scrollsSideways(page)).toBe(false);
    await screenshot(page, `deployment-history-${width}`);
    await pager.getByRole("button", { name: "Previous page" }).click();
    await expect(entries.first()).toContainText('"step":30');
  });
}
