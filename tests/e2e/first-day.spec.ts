import type { Locator, Page } from "@playwright/test";
import { sampleProposal } from "../helpers/proposal";
import { expect, test } from "./fixtures";
import { api, chatAsAdmin, createAgents, scrollsSideways, signInWithKey } from "./helpers";

/**
 * What a new admin meets on the first day: errors that say what is wrong and where (the focus
 * on the field to correct), the admin's words rather than the API's, the echo provider's limits
 * said where tools are added, a way around the long agent page, states that read as text.
 */

const UNREACHABLE = /cannot be reached/;

/** API words a page must not show outside code: methods with paths or JSON, field paths, names. */
const API_WORDS = [
  /\b(GET|POST|PUT|PATCH|DELETE) [/{]/,
  /\b[a-z]+_[a-z_]+\.\d+\b/, // a zod path: mcp_servers.0.name
  /\bexpires_at\b/,
  /\bmax_tool_steps\b/,
  /\bmcp_servers\b/,
  /\bWEBHOOK_RETRY_WINDOW_H\b/,
];

/** The page's visible text outside <code> and <pre> (which show what is typed or sent). */
const proseOf = (scope: Locator) =>
  scope.evaluate((root) => {
    const parts: string[] = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement?.closest("code, pre, script, style")) continue;
      parts.push(node.textContent ?? "");
    }
    return parts.join(" ");
  });

async function expectAdminWords(scope: Locator) {
  const prose = await proseOf(scope);
  for (const word of API_WORDS) expect(prose, `${word} on the page`).not.toMatch(word);
}

let deploymentId = 0;
let webhookId = "";

test.beforeAll(async () => {
  await createAgents([
    { aid: "zday-tools" },
    {
      aid: "zday-words",
      max_tool_steps: 0,
      mcp_servers: [{ name: "docs", url: "https://mcp.example.com/mcp" }],
    },
    { aid: "zday-paused", paused: true },
    { aid: "zday-running" },
    { aid: "zday-unpriced", model: "zday-no-price-model" },
  ]);
  // Other files price the echo provider's model on this shared service: its reply here must have
  // no price (a reply's cost is fixed when it is stored).
  await api("/prices/echo", { method: "DELETE" });
  await chatAsAdmin("zday-unpriced", "what does this cost?");
  const made = await api("/v1/deployments", {
    method: "POST",
    body: JSON.stringify({
      request_id: `zday-${Date.now()}`,
      user_address: "0x0000000000000000000000000000000000000007",
      proposal: sampleProposal,
    }),
  });
  deploymentId = (await made.json()).id;
  // An endpoint on a public name no delivery reaches here; a test event gives it a delivery, and
  // disabling it gives it a reason to show.
  const hook = await api("/webhooks", {
    method: "POST",
    body: JSON.stringify({ url: "https://hooks.example.com/zday", events: ["run.failed"] }),
  });
  webhookId = (await hook.json()).id;
  expect((await api(`/webhooks/${webhookId}/test`, { method: "POST" })).status).toBeLessThan(300);
  const disabled = await api(`/webhooks/${webhookId}`, {
    method: "PATCH",
    body: JSON.stringify({ enabled: false }),
  });
  expect(disabled.status).toBe(200);
});

async function openAgent(page: Page, aid: string) {
  await signInWithKey(page);
  await page.goto(`/dashboard/agents/${aid}`);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
}

test("invalid deployment details say the JSON is invalid and where, and focus the field", async ({
  page,
}) => {
  await signInWithKey(page);
  await page.goto(`/dashboard/deployments/${deploymentId}`);
  const panel = page.getByRole("region", { name: "Change status" });
  await panel.getByLabel("New status").selectOption("pick_up");
  const details = panel.getByLabel("Deployment details (JSON, optional)");
  await details.fill('{"endpoint": https://x}');
  await panel.getByRole("button", { name: "Apply" }).click();
  const error = panel.locator("#admin-next-details-error");
  await expect(error).toContainText("not valid JSON");
  await expect(error).toContainText("character 14");
  await expect(panel).not.toContainText(UNREACHABLE);
  await expect(details).toHaveAttribute("aria-invalid", "true");
  await expect(details).toBeFocused();

  // Valid JSON that is not an object is refused beside the field as well.
  await details.fill("[1, 2]");
  await panel.getByRole("button", { name: "Apply" }).click();
  await expect(error).toContainText("a JSON object");
  await expect(details).toBeFocused();
  expect((await (await api(`/v1/deployments/${deploymentId}`)).json()).Status).toBe("init");
});

test("the cancel dialog's buttons cannot be confused", async ({ page }) => {
  await signInWithKey(page);
  await page.goto(`/dashboard/deployments/${deploymentId}`);
  await page.getByRole("button", { name: "Cancel deployment" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog.getByRole("button", { name: "Keep deployment" })).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Cancel deployment" })).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Cancel", exact: true })).toHaveCount(0);
  await dialog.getByRole("button", { name: "Keep deployment" }).click();
  await expect(dialog).toBeHidden();
  expect((await (await api(`/v1/deployments/${deploymentId}`)).json()).Status).toBe("init");
});

test("Add MCP server focuses its first field, and a refused save the field to correct", async ({
  page,
}) => {
  await openAgent(page, "zday-tools");
  const tools = page.getByRole("region", { name: "Tools" });
  await tools.getByRole("button", { name: "Add MCP server" }).click();
  const form = page.getByRole("form", { name: "Add an MCP server" });
  await expect(form.getByLabel("Server name")).toBeFocused();

  await form.getByLabel("Server name").fill("bad name!");
  await form.getByLabel("Server URL").fill("https://mcp.example.com/mcp");
  await form.getByRole("button", { name: "Add server" }).click();
  await expect(form.locator("#server_name-error")).toBeVisible();
  await expect(form.getByLabel("Server name")).toBeFocused();
  // The refusal names the server and its field as the form does, not by the API's path.
  await expect(form.getByRole("alert")).toContainText("MCP server 1");
  await expectAdminWords(form);

  await form.getByLabel("Server name").fill("calc");
  await form.getByLabel("Server URL").fill("not a url");
  await form.getByRole("button", { name: "Add server" }).click();
  await expect(form.locator("#server_url-error")).toContainText("http(s) URL");
  await expect(form.getByLabel("Server URL")).toBeFocused();
});

test("on the echo provider, the tools panel says that it calls no tools, and the form still works", async ({
  page,
}) => {
  await openAgent(page, "zday-tools");
  const tools = page.getByRole("region", { name: "Tools" });
  const note = tools.getByTestId("echo-no-tools");
  await expect(note).toContainText("echo provider");
  await expect(note).toContainText("never calls tools");
  await expect(note).toContainText("LLM_BASE_URL");
  await tools.getByRole("button", { name: "Add MCP server" }).click();
  await expect(page.getByRole("form", { name: "Add an MCP server" })).toBeVisible();
});

test("the agent page says its words, not the API's", async ({ page }) => {
  await openAgent(page, "zday-words");
  await expect(page.getByRole("region", { name: "Tools" })).toContainText(
    "Model turns that may call tools",
  );
  await expectAdminWords(page.locator("main"));

  // A key that would end in the past: refused in the form's words.
  const keys = page.getByRole("region", { name: "Agent keys" });
  await keys.getByLabel("Key name").fill("late");
  await keys.getByLabel("Works until (UTC, optional)").fill("2020-01-01");
  await keys.getByRole("button", { name: "Make key" }).click();
  await expect(keys.getByRole("alert")).toContainText("must lie ahead");
  await expectAdminWords(keys);
});

test("Add endpoint focuses the form's first field, and a refusal the field to correct", async ({
  page,
}) => {
  await signInWithKey(page);
  await page.goto("/dashboard/webhooks");
  await expectAdminWords(page.locator("main"));
  await expect(page.locator("main")).toContainText("hours");
  await page.getByRole("button", { name: "Add endpoint" }).click();
  const form = page.getByRole("form", { name: "Add a webhook endpoint" });
  await expect(form.getByLabel("URL")).toBeFocused();

  // No event chosen: the first event's box takes the focus.
  await form.getByLabel("URL").fill("https://hooks.example.com/first-day");
  await form.getByRole("button", { name: "Add endpoint" }).click();
  await expect(form.getByRole("alert")).toContainText("Not saved");
  await expect(form.getByRole("checkbox").first()).toBeFocused();

  // A loopback receiver: refused beside the URL, naming the setting and the restart.
  await form.getByRole("checkbox").first().check();
  await form.getByLabel("URL").fill("http://127.0.0.1:9999/hooks");
  await form.getByRole("button", { name: "Add endpoint" }).click();
  const urlError = form.locator("#webhook_url-error");
  await expect(urlError).toContainText("WEBHOOK_ALLOWED_HOSTS");
  await expect(urlError).toContainText("127.0.0.1:9999");
  await expect(urlError).toContainText("restart");
  await expect(form.getByLabel("URL")).toBeFocused();
});

test("a disabled endpoint's page says how to enable it in the page's words, and Retry says what it retries", async ({
  page,
}) => {
  await signInWithKey(page);
  await page.goto(`/dashboard/webhooks/${webhookId}`);
  await expect(page.getByTestId("webhook-state")).toContainText(/disabled/i);
  const row = page.getByTestId("delivery-row").first();
  const retry = row.getByRole("button", { name: "Retry delivery" });
  await expect(retry).toBeVisible();
  await expect(retry).toHaveAccessibleDescription(/webhook\.test/);
  await retry.click();
  await expect(page.getByRole("alert").filter({ hasText: "Not retried" })).toContainText("Enable");
  await expectAdminWords(page.locator("main"));
});

test("paused agents show their state in the list, in words", async ({ page }) => {
  await signInWithKey(page);
  await page.goto("/dashboard/agents?q=zday-");
  const paused = page.getByTestId("agent-row-zday-paused");
  await expect(paused.getByTestId("agent-state")).toHaveText("Paused");
  await expect(page.getByTestId("agent-row-zday-running").getByTestId("agent-state")).toHaveCount(
    0,
  );
});

test("Reset counters opens with none ticked and cannot confirm until one is", async ({ page }) => {
  await openAgent(page, "zday-tools");
  await page.getByRole("button", { name: "Reset counters" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog.getByRole("checkbox")).toHaveCount(8);
  for (const box of await dialog.getByRole("checkbox").all()) await expect(box).not.toBeChecked();
  const confirm = dialog.getByRole("button", { name: /^Reset/ });
  await expect(confirm).toBeDisabled();
  await dialog.getByLabel("Messages today").check();
  await expect(confirm).toBeEnabled();
  await expect(confirm).toHaveText("Reset 1 counter");
});

test("an unknown cost is said, not drawn as 0", async ({ page }) => {
  await openAgent(page, "zday-unpriced");
  const usage = page.getByRole("region", { name: "Usage, last 30 days" });
  await expect(usage.getByTestId("usage-totals")).toContainText("cost unknown");
  const cost = usage.getByTestId("usage-chart").filter({ hasText: "Cost" });
  await expect(cost).toContainText(/unknown: none of these replies had a price/i);
  await expect(cost.locator("canvas")).toHaveCount(0);
});

for (const width of [1440, 390]) {
  test(`the agent page links to its sections, by mouse and keyboard, at ${width} px`, async ({
    page,
  }) => {
    await page.setViewportSize({ width, height: 844 });
    await openAgent(page, "zday-tools");
    const sections = page.getByRole("navigation", { name: "Sections of this page" });
    const links = sections.getByRole("link");
    expect(await links.allTextContents()).toEqual([
      "Quota",
      "Usage",
      "Chat",
      "OpenAI API",
      "MCP",
      "A2A",
      "Models",
      "Tools",
      "Approvals",
      "Conversations",
      "Agent keys",
      "Autonomous runs",
      "Configuration",
    ]);
    expect(await scrollsSideways(page)).toBe(false);
    for (const [link, heading] of [
      ["Configuration", "Configuration"],
      ["A2A", "A2A server"],
      ["Models", "Model endpoints"],
      ["Tools", "Tools"],
      ["Approvals", "Approvals"],
      ["Agent keys", "Agent keys"],
    ]) {
      await sections.getByRole("link", { name: link }).click();
      await expect(page.getByRole("heading", { name: heading, exact: true })).toBeInViewport();
      await page.evaluate(() => window.scrollTo(0, 0));
    }
    // By keyboard: the link takes the focus, Enter moves to the section and into it.
    await sections.getByRole("link", { name: "Autonomous runs" }).focus();
    await page.keyboard.press("Enter");
    const runs = page.getByRole("heading", { name: "Autonomous runs", exact: true });
    await expect(runs).toBeInViewport();
    await expect(runs).toBeFocused();
  });
}
