import type { Page } from "@playwright/test";
import { TEST_ADMIN_KEY } from "../helpers/admin-key";
import { expect, screenshot, test } from "./fixtures";
import { api, createAgents, navigate, scrollsSideways, signInWithKey, WIDTHS } from "./helpers";

/**
 * The request log's page: the filters in the URL (a reload and Back keep them), pages, and a
 * row's thread link opening that thread on the agent's page. Agent `zrlog` gets 26 replies
 * (the admin's, in thread `ticket-<n>`) and `zrlog-keys` (key only) 2 refusals.
 */

const base = () => process.env.E2E_BASE_URL as string;

test.beforeAll(async () => {
  // Once per server: a worker started again after a failure finds them there.
  const logged = await (await api("/requests?aid=zrlog&limit=100")).json();
  if (logged.requests.length > 0) return;
  await createAgents([{ aid: "zrlog" }, { aid: "zrlog-keys", chat_access: "key" }]);
  for (let i = 0; i < 26; i++) {
    const chat = await fetch(`${base()}/zrlog/chat?q=question+${i}&chat_id=ticket-${i}`, {
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, "x-request-id": `e2e-reply-${i}` },
    });
    expect(chat.status).toBe(200);
  }
  for (let i = 0; i < 2; i++) {
    const refused = await fetch(`${base()}/zrlog-keys/chat?q=hi`, {
      headers: { "x-request-id": `e2e-refused-${i}` },
    });
    expect(refused.status).toBe(401);
  }
  // The server lists what it has logged (one process: its own rows are written before a read).
  const listed = await (await api("/requests?aid=zrlog&limit=100")).json();
  expect(listed.requests).toHaveLength(26);
});

const rows = (page: Page) => page.getByTestId("requests-list").getByTestId("request-row");

test("filters in the URL, pages, and a row's link opening its thread", async ({ page }) => {
  await signInWithKey(page);
  await navigate(page, "Request log");
  await expect(page).toHaveURL(/\/dashboard\/requests$/);
  await expect(page).toHaveTitle("Request log · Agent Service");

  // The agent filter follows typing, into the URL.
  await page.getByLabel("Agent ID").fill("zrlog");
  await expect(page).toHaveURL(/\?aid=zrlog$/);
  await expect(page.getByTestId("pager-position")).toHaveText("1–25 requests · page 1");
  await expect(rows(page).first()).toContainText("ticket-25");
  await page.getByRole("button", { name: "Next page" }).click();
  await expect(page).toHaveURL(/cursor=.*page=2/);
  await expect(page.getByTestId("pager-position")).toHaveText("26–26 requests · page 2");
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toContainText("ticket-0");
  await page.getByRole("button", { name: "Previous page" }).click();
  await expect(page.getByTestId("pager-position")).toHaveText("1–25 requests · page 1");

  // Failures of the key-only agent: the two refusals, and the filters survive a reload.
  await page.getByLabel("Agent ID").fill("zrlog-keys");
  await page.getByLabel("Status").selectOption("failed");
  await expect(page).toHaveURL(/aid=zrlog-keys/);
  await expect(page).toHaveURL(/status=failed/);
  await expect(rows(page)).toHaveCount(2);
  await page.reload();
  await expect(page.getByLabel("Agent ID")).toHaveValue("zrlog-keys");
  await expect(page.getByLabel("Status")).toHaveValue("failed");
  await expect(rows(page)).toHaveCount(2);
  const refusal = rows(page).first();
  await expect(refusal).toContainText("401");
  await expect(refusal.getByTestId("request-code")).toHaveText("key required");
  await expect(refusal).toContainText("e2e-refused-1");
  await expect(refusal).toContainText(/address #[0-9a-f]{8}/);

  // A status with no match, then Back to the failures.
  await page.getByLabel("Status").selectOption("200");
  await expect(page.getByText("No request matches these filters.")).toBeVisible();
  await page.goBack();
  await expect(page.getByLabel("Status")).toHaveValue("failed");
  await expect(rows(page)).toHaveCount(2);

  // One reply: its agent, caller, tokens and request id; its thread link opens the thread.
  await page.goto("/dashboard/requests?aid=zrlog&status=200");
  const reply = rows(page).filter({ hasText: "e2e-reply-7" });
  await expect(reply).toHaveCount(1);
  await expect(reply).toContainText("admin");
  await expect(reply).toContainText(/\d+ in · \d+ out/);
  await expect(reply.getByRole("button", { name: "Copy request ID" })).toBeVisible();
  await expect(reply.getByRole("link", { name: "zrlog" })).toHaveAttribute(
    "href",
    "/dashboard/agents/zrlog",
  );
  await reply.getByRole("link", { name: "Thread ticket-7 of admin" }).click();
  await expect(page).toHaveURL(/\/dashboard\/agents\/zrlog\?thread=ticket-7&caller=admin$/);
  const thread = page.getByTestId("thread-log");
  await expect(thread).toHaveAccessibleName("Thread ticket-7");
  await expect(thread).toContainText("question 7");
  await expect(thread).toContainText("echo: question 7");
  await expect(thread).toBeInViewport();
});

for (const { name, viewport, suffix } of WIDTHS) {
  test(`the request log fits, ${name}`, async ({ page }) => {
    await page.setViewportSize(viewport);
    await signInWithKey(page);
    await page.goto("/dashboard/requests?aid=zrlog");
    await expect(rows(page)).toHaveCount(25);
    expect(await scrollsSideways(page)).toBe(false);
    await screenshot(page, `requests-${suffix}`);
  });
}
