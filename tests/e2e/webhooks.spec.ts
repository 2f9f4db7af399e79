import { TEST_ADMIN_KEY } from "../helpers/admin-key";
import { type RunningServer, startServer } from "../helpers/server";
import { startWebhookReceiver, verified, type WebhookReceiver } from "../helpers/webhook-receiver";
import { expect, screenshot, test } from "./fixtures";

/**
 * The webhooks pages: an admin adds an endpoint (its secret shown once), sends a test event,
 * sees deliveries (delivered, failed with the receiver's status) and retries one, rotates the
 * secret, disables and deletes it. A service of its own, which may send to loopback.
 */

let service: RunningServer;
let receiver: WebhookReceiver;
let baseURL: string;
let failing = false;

test.beforeAll(async () => {
  receiver = await startWebhookReceiver((_, response) => {
    response.statusCode = failing ? 500 : 200;
    response.end(failing ? "receiver down for maintenance" : "ok");
  });
  service = await startServer({
    SCHEDULER: "off",
    WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
    WEBHOOK_RETRY_BASE_S: "30",
  });
  baseURL = `http://localhost:${new URL(service.url).port}`;
});

test.afterAll(async () => {
  await service?.stop();
  await receiver?.close();
});

test("an admin adds an endpoint, tests it, retries a failed delivery, rotates its secret and deletes it", async ({
  page,
  context,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.goto(`${baseURL}/login`);
  await page.getByLabel("Admin API key", { exact: true }).fill(TEST_ADMIN_KEY);
  await page.getByRole("button", { name: "Sign in with the key" }).click();
  await expect(page.getByTestId("who")).toHaveText("Owner (ADMIN_API_KEY)");
  await page
    .getByRole("navigation", { name: "Dashboard" })
    .getByRole("link", { name: "Webhooks" })
    .click();

  await page.getByRole("button", { name: "Add endpoint" }).click();
  const form = page.getByRole("form", { name: "Add a webhook endpoint" });
  await form.getByLabel("URL").fill(`${receiver.url}/hooks`);
  await form.getByRole("button", { name: "Add endpoint" }).click();
  await expect(form.getByRole("alert")).toContainText("Not saved");
  await form.getByLabel("agent.created").check();
  await form.getByRole("button", { name: "Add endpoint" }).click();
  const shown = page.getByTestId("new-webhook-secret");
  await expect(shown).toContainText("it is not shown again");
  await shown.getByRole("button", { name: "Copy signing secret" }).click();
  const secret = await page.evaluate(() => navigator.clipboard.readText());
  expect(secret).toMatch(/^whsec_/);

  await page.getByTestId("webhook-row").getByRole("link").click();
  await page.getByRole("button", { name: "Send test event" }).click();
  const rows = page.getByTestId("delivery-row");
  await expect(rows.first()).toContainText("webhook.test");
  await expect(rows.first()).toContainText(/delivered/i);
  expect(verified(secret, receiver.received.at(-1) as never).type).toBe("webhook.test");

  // A real event: the agent's record, signed with the same secret.
  await fetch(`${baseURL}/agents`, {
    method: "POST",
    headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ aid: "hooked" }),
  });
  await expect(rows.first()).toContainText("agent.created");
  expect(verified(secret, receiver.received.at(-1) as never)).toMatchObject({
    type: "agent.created",
    data: { aid: "hooked" },
  });

  // The receiver fails: the delivery log shows its status and its first bytes; Retry tries again.
  failing = true;
  await page.getByRole("button", { name: "Send test event" }).click();
  await expect(rows.first()).toContainText("HTTP 500");
  await expect(rows.first()).toContainText("receiver down for maintenance");
  await expect(rows.first()).toContainText("1 attempt");
  failing = false;
  await rows.first().getByRole("button", { name: "Retry delivery" }).click();
  await expect(rows.first()).toContainText("2 attempts");
  await expect(rows.first()).toContainText(/delivered/i);

  // Rotated: the next delivery verifies with the new secret only.
  await page.getByRole("button", { name: "Rotate secret" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Rotate secret" }).click();
  const rotated = page.getByTestId("rotated-secret");
  await rotated.getByRole("button", { name: "Copy signing secret" }).click();
  const fresh = await page.evaluate(() => navigator.clipboard.readText());
  expect(fresh).not.toBe(secret);
  const before = receiver.received.length;
  await page.getByRole("button", { name: "Send test event" }).click();
  await expect.poll(() => receiver.received.length).toBeGreaterThan(before);
  expect(verified(fresh, receiver.received.at(-1) as never).type).toBe("webhook.test");
  expect(() => verified(secret, receiver.received.at(-1) as never)).toThrow();

  await page.getByRole("button", { name: "Disable" }).click();
  await expect(page.getByTestId("webhook-state")).toContainText(/disabled/i);
  await page.getByRole("button", { name: "Enable" }).click();
  await expect(page.getByTestId("webhook-state")).toContainText(/enabled/i);

  await page.setViewportSize({ width: 390, height: 800 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(
    true,
  );
  await screenshot(page, "webhook-390");

  await page.getByRole("button", { name: "Delete endpoint" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Delete endpoint" }).click();
  await expect(page).toHaveURL(/\/dashboard\/webhooks$/);
  await expect(page.getByText("No endpoints yet.")).toBeVisible();
});
