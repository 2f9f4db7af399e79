import { TEST_ADMIN_KEY } from "../helpers/admin-key";
import { type ModelServer, startModelServer } from "../helpers/model-server";
import { expect, screenshot, test } from "./fixtures";

/**
 * The dashboard's chat while a reply is on its way: it says it is waiting (and for how long),
 * it can be stopped, leaving asks first, and a refusal says its reset in the reader's words. A
 * service of its own on the fake model, whose replies can be slow or fail.
 */

let service: ModelServer;
let base: string;

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };

test.beforeAll(async () => {
  service = await startModelServer("pglite", { SCHEDULER: "off" });
  base = `http://localhost:${new URL(service.server.url).port}`;
  for (const agent of [
    { aid: "zstream" },
    { aid: "zlimited", quota: { message_limit_daily: 1 } },
  ]) {
    const created = await fetch(`${base}/agents`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify(agent),
    });
    expect(created.status).toBe(201);
  }
});
test.afterAll(() => service?.stop());

async function openAgent(page: import("@playwright/test").Page, aid: string) {
  await page.goto(`${base}/login`);
  await page.getByLabel("Admin API key", { exact: true }).fill(TEST_ADMIN_KEY);
  await page.getByRole("button", { name: "Sign in with the key" }).click();
  await expect(page.getByTestId("who")).toHaveText("Owner (ADMIN_API_KEY)");
  await page.goto(`${base}/dashboard/agents/${aid}`);
  await expect(page.getByRole("heading", { name: aid, level: 1 })).toBeVisible();
}

const countedMessages = async (aid: string) =>
  (await (await fetch(`${base}/agents/${aid}`, { headers: admin })).json()).quota
    .message_count_total as number;

test("a reply on its way says so, and Stop ends it with the question kept", async ({ page }) => {
  await openAgent(page, "zstream");
  // Two seconds before the first word, then a word every 600 ms.
  service.fake.behave({
    kind: "reply",
    text: "one two three four five six seven eight",
    chunks: 8,
    chunkDelayMs: 600,
    delayMs: 2000,
  });
  const input = page.getByLabel("Message", { exact: true });
  await input.fill("tell me a long story");
  await page.getByRole("button", { name: "Send" }).click();
  const reply = page.getByTestId("streaming-reply");
  await expect(reply).toContainText("Waiting for the reply");
  const stop = page.getByRole("button", { name: "Stop" });
  await expect(stop).toBeVisible();
  await expect(reply).toContainText("one");
  await screenshot(page, "chat-streaming");
  await stop.click();

  await expect(reply).toHaveCount(0);
  await expect(page.getByTestId("chat-stopped")).toContainText("Stopped");
  await expect(input).toHaveValue("tell me a long story");
  await expect(page.getByRole("button", { name: "Stop" })).toHaveCount(0);
  // Nothing was kept: the message was given back.
  await expect.poll(() => countedMessages("zstream")).toBe(0);
});

test("leaving while a reply streams asks first", async ({ page }) => {
  await openAgent(page, "zstream");
  service.fake.behave({
    kind: "reply",
    text: "slowly slowly slowly slowly",
    chunks: 4,
    chunkDelayMs: 700,
  });
  await page.getByLabel("Message", { exact: true }).fill("take your time");
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByTestId("streaming-reply")).toContainText("slowly");
  await page
    .getByRole("navigation", { name: "Dashboard" })
    .getByRole("link", { name: "Agents" })
    .click();
  const dialog = page.getByRole("dialog", { name: "Leave while a reply is coming?" });
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: "Stay" }).click();
  await expect(page.getByTestId("chat-log")).toContainText("slowly slowly slowly slowly");
  expect(page.url()).toMatch(/\/dashboard\/agents\/zstream$/);
});

test("a model that fails says so, with the question back in the box", async ({ page }) => {
  await openAgent(page, "zstream");
  service.fake.behave({ kind: "error", status: 500 });
  const input = page.getByLabel("Message", { exact: true });
  await input.fill("will this work?");
  await page.getByRole("button", { name: "Send" }).click();
  const failed = page.getByRole("region", { name: "Chat" }).getByRole("alert");
  await expect(failed).toContainText("The model provider failed");
  await expect(input).toHaveValue("will this work?");
  service.fake.behave({ kind: "reply", text: "Hello from the fake model." });
});

test("a reply cut off on its way says so, with the question back in the box", async ({ page }) => {
  await openAgent(page, "zstream");
  service.fake.behave({ kind: "reply", text: "Hello from the fake model." });
  // Something between the page and the service loses the reply's last event: the stream ends
  // as if complete, without `done`.
  await page.route("**/api/trpc/*chat.stream*", async (route) => {
    const response = await route.fetch();
    const lines = (await response.text()).split("\n");
    const kept = lines.filter((line) => !line.includes('"type":"done"'));
    expect(kept).toHaveLength(lines.length - 1);
    await route.fulfill({ response, body: kept.join("\n") });
  });
  const input = page.getByLabel("Message", { exact: true });
  await input.fill("are you there?");
  await page.getByRole("button", { name: "Send" }).click();
  const failed = page.getByRole("region", { name: "Chat" }).getByRole("alert");
  await expect(failed).toContainText("The reply was cut off before it ended");
  await expect(input).toHaveValue("are you there?");
  // The service did store it: the log says so, as the sentence promises.
  await expect(page.getByTestId("chat-log")).toContainText("Hello from the fake model.");
});

test.describe("in Tokyo", () => {
  test.use({ timezoneId: "Asia/Tokyo" });

  test("a limit's reset is said in the reader's time, not as an ISO instant", async ({ page }) => {
    service.fake.behave({ kind: "reply", text: "Hello from the fake model." });
    const first = await fetch(`${base}/zlimited/chat?q=hello`, { headers: admin });
    expect(first.status).toBe(200);
    await openAgent(page, "zlimited");
    await page.getByLabel("Message", { exact: true }).fill("once more");
    await page.getByRole("button", { name: "Send" }).click();
    const refused = page.getByRole("region", { name: "Chat" }).getByRole("alert");
    await expect(refused).toContainText("Daily message limit reached");
    // The next UTC midnight is 09:00 in Tokyo.
    await expect(refused).toContainText("09:00");
    await expect(refused).not.toContainText(/\d{4}-\d{2}-\d{2}T/);
  });
});
