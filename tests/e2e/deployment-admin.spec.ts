import { sampleProposal } from "../helpers/proposal";
import { expect, screenshot, test } from "./fixtures";
import { api, signInWithKey } from "./helpers";

/**
 * An admin signed in with the key changes and cancels a deployment from its page, with no
 * wallet: the panel offers the status machine's next statuses, cancelling asks first, and the
 * history says the admin did it.
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
