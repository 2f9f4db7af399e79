import AxeBuilder from "@axe-core/playwright";
import { TEST_ADMIN_KEY } from "../helpers/admin-key";
import { startMcpServer, type TestMcpServer } from "../helpers/mcp-server";
import { type ModelServer, startModelServer } from "../helpers/model-server";
import { expect, screenshot, test } from "./fixtures";
import { scrollsSideways, signInHere } from "./helpers";

/**
 * Tool calls that wait for a person, in the dashboard: the MCP server form sets which tools need
 * approval (and every later save keeps it); a chat whose model asks for such a tool pauses, its
 * call shows under the agent page's Approvals, where it is denied with a reason (by keyboard)
 * or approved, and what the chat did then is said. A service of its own on the fake model, with
 * the loopback MCP server.
 */

let service: ModelServer;
let mcp: TestMcpServer;
let baseURL: string;

const rest = (path: string, init: RequestInit = {}) =>
  fetch(`${baseURL}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${TEST_ADMIN_KEY}`,
      "content-type": "application/json",
      ...init.headers,
    },
  });

async function createAgent(agent: Record<string, unknown>) {
  const created = await rest("/agents", { method: "POST", body: JSON.stringify(agent) });
  expect(created.status).toBe(201);
}

const serversOf = async (aid: string) => (await (await rest(`/agents/${aid}`)).json()).mcp_servers;

/** A chat through the API as the admin, which pauses at the gated call. */
async function chatUntilPaused(aid: string, q: string, chatId = "default") {
  const response = await rest(`/${aid}/chat?${new URLSearchParams({ q, chat_id: chatId })}`, {
    headers: { accept: "application/json" },
  });
  expect(response.status).toBe(200);
  const body = await response.json();
  expect(body).toMatchObject({ status: "requires_approval", approvals: [{ tool: "add" }] });
  return body.approvals[0].id as string;
}

test.beforeAll(async () => {
  mcp = await startMcpServer();
  // Loopback, where the test's MCP server is, is reached only when listed.
  service = await startModelServer("pglite", { SCHEDULER: "off", MCP_ALLOWED_HOSTS: "127.0.0.1" });
  baseURL = `http://localhost:${new URL(service.server.url).port}`;
});

test.afterAll(async () => {
  await service?.stop();
  await mcp?.close();
});

test("the MCP server form sets the tools that need approval, and every later save keeps them", async ({
  page,
}) => {
  await createAgent({
    aid: "e2e-gate-form",
    mcp_servers: [{ name: "calc", url: mcp.url, allowed_tools: ["add", "lookup"] }],
  });
  await page.goto(`${baseURL}/login`);
  await signInHere(page);
  await page.goto(`${baseURL}/dashboard/agents/e2e-gate-form`);
  const tools = page.getByRole("region", { name: "Tools" });

  // A name too long is refused beside the field.
  await tools.getByRole("button", { name: "Edit calc" }).click();
  const edit = page.getByRole("form", { name: "Edit MCP server calc" });
  const gated = edit.getByLabel("Tools that need approval");
  await expect(gated).toHaveValue("");
  await gated.fill("x".repeat(129));
  await edit.getByRole("button", { name: "Save server" }).click();
  await expect(edit.locator("#approval_required_tools-error")).toContainText("128 characters");
  await expect(gated).toBeFocused();
  await gated.fill("add");
  await edit.getByRole("button", { name: "Save server" }).click();
  await expect(tools.getByRole("status").filter({ hasText: "Saved calc." })).toBeVisible();
  expect((await serversOf("e2e-gate-form"))[0]).toMatchObject({
    allowed_tools: ["add", "lookup"],
    approval_required_tools: ["add"],
  });
  const calc = tools.getByTestId("tool-server").filter({ hasText: "calc" });
  await expect(calc.getByTestId("approval-tools")).toHaveText(
    "Calls of add wait for approval (under Approvals).",
  );
  await expect(calc.getByRole("row", { name: /add Adds two numbers\. yes yes/ })).toBeVisible();

  // Another server added, then calc's other fields edited, then the other removed: each save
  // sends every server back, and calc's list stays.
  await tools.getByRole("button", { name: "Add MCP server" }).click();
  const add = page.getByRole("form", { name: "Add an MCP server" });
  await add.getByLabel("Server name").fill("other");
  await add.getByLabel("Server URL").fill(mcp.url);
  await add.getByRole("button", { name: "Add server" }).click();
  await expect(tools.getByRole("status").filter({ hasText: "Saved other." })).toBeVisible();
  expect(await serversOf("e2e-gate-form")).toMatchObject([
    { name: "calc", approval_required_tools: ["add"] },
    { name: "other", approval_required_tools: [] },
  ]);

  await tools.getByRole("button", { name: "Edit calc" }).click();
  await expect(edit.getByLabel("Tools that need approval")).toHaveValue("add");
  await edit.getByLabel("Tools the agent may call").fill("add\nlookup\nfail");
  await edit.getByRole("button", { name: "Save server" }).click();
  await expect(tools.getByRole("status").filter({ hasText: "Saved calc." })).toBeVisible();

  await tools.getByRole("button", { name: "Remove other" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Remove server" }).click();
  await expect(tools.getByRole("status").filter({ hasText: "Removed other." })).toBeVisible();
  expect(await serversOf("e2e-gate-form")).toEqual([
    expect.objectContaining({
      name: "calc",
      allowed_tools: ["add", "lookup", "fail"],
      approval_required_tools: ["add"],
    }),
  ]);
});

test("a waiting call is denied with a reason by keyboard, another approved, a late one refused", async ({
  page,
}) => {
  await createAgent({
    aid: "e2e-gate",
    mcp_servers: [{ name: "calc", url: mcp.url, approval_required_tools: ["add"] }],
  });
  await page.goto(`${baseURL}/login`);
  await signInHere(page);
  await page.goto(`${baseURL}/dashboard/agents/e2e-gate`);
  const panel = page.getByRole("region", { name: "Approvals" });
  await expect(panel).toContainText("No tool calls are waiting for approval.");
  const rows = panel.getByTestId("approval");
  const outcome = panel.getByTestId("approval-outcome");
  const callsBefore = mcp.calls.length;

  // The chat pauses; the page, open all along, shows the call when it next asks (every 5 s).
  service.fake.behave(
    { kind: "tools", calls: [{ name: "add", arguments: { a: 40, b: 2 }, id: "c1" }] },
    { kind: "reply", text: "I was not allowed to add them." },
  );
  await chatUntilPaused("e2e-gate", "What is 40 + 2?");
  await expect(rows).toHaveCount(1, { timeout: 15_000 });
  const row = rows.first();
  await expect(row.getByRole("heading")).toHaveText("add of calc");
  await expect(row.getByRole("region", { name: "Arguments of add" })).toHaveText(
    '{\n  "a": 40,\n  "b": 2\n}',
  );
  await expect(row.getByTestId("approval-thread")).toHaveText(
    /^Asked through a chat (just now|\d+ minutes? ago), in the thread default of admin; it stops waiting in 1 hour\.$/,
  );
  // The panel with a call in it: axe-core finds no serious or critical violation there.
  const axe = await new AxeBuilder({ page }).include("#approvals").setLegacyMode().analyze();
  expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical")).toEqual(
    [],
  );

  // Denied by keyboard: the dialog opens on its reason, which is typed, then confirmed.
  const reason = "Adding is not allowed today.";
  await row.getByRole("button", { name: "Deny…" }).focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: "Deny the call of add?" });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel("Reason (optional)")).toBeFocused();
  await page.keyboard.type(reason);
  await page.keyboard.press("Tab");
  await page.keyboard.press("Tab");
  await expect(dialog.getByRole("button", { name: "Deny the call" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(dialog).toBeHidden();
  await expect(outcome).toContainText(
    "Denied calc / add. The chat went on and replied (stored in its conversation):",
  );
  await expect(outcome).toContainText("I was not allowed to add them.");
  // The focus is on what happened, not lost with the decided call's box.
  await expect(outcome).toBeFocused();
  await expect(rows).toHaveCount(0);
  await expect(panel).toContainText("No tool calls are waiting for approval.");
  // The model was told the call was denied, and why; the tool was not called.
  expect(service.fake.requests.at(-1)?.messages.at(-1)).toEqual({
    role: "tool",
    tool_call_id: "c1",
    content: `Error: Not called: the call was denied. The approver's reason: ${reason}`,
  });
  expect(mcp.calls.length).toBe(callsBefore);

  // On a phone, in a thread with a long name: the call fits the screen, its thread opens.
  await page.setViewportSize({ width: 390, height: 844 });
  const thread = `phone-${"0123456789".repeat(8)}`;
  service.fake.behave(
    { kind: "tools", calls: [{ name: "add", arguments: { a: 40, b: 2 } }] },
    { kind: "reply", text: "The answer is 42." },
  );
  await chatUntilPaused("e2e-gate", "And now?", thread);
  await expect(rows).toHaveCount(1, { timeout: 15_000 });
  await expect(rows.first()).toContainText(thread);
  expect(await scrollsSideways(page)).toBe(false);
  const outside = await panel.evaluate((section) => {
    const right = section.getBoundingClientRect().right;
    return [...section.querySelectorAll("*")].filter(
      (element) => element.getBoundingClientRect().right > right + 0.5,
    ).length;
  });
  expect(outside).toBe(0);
  await screenshot(page, "approvals-390");
  await rows.first().getByRole("link", { name: thread }).click();
  await expect(page).toHaveURL(new RegExp(`thread=${thread}&caller=admin`));
  await expect(page.getByTestId("thread-log")).toBeVisible();

  // Approved: the call is made and the chat's reply shown.
  await rows.first().getByRole("button", { name: "Approve" }).click();
  await expect(outcome).toContainText("Approved calc / add.");
  await expect(outcome).toContainText("The answer is 42.");
  await expect(outcome).toBeFocused();
  await expect(rows).toHaveCount(0);
  expect(mcp.calls.slice(callsBefore)).toEqual([{ name: "add", arguments: { a: 40, b: 2 } }]);

  // Decided in another tab while this page still shows it (its list held back meanwhile, so
  // that the call is still there to click): the page says so, and the call goes.
  service.fake.behave(
    { kind: "tools", calls: [{ name: "add", arguments: { a: 1, b: 1 } }] },
    { kind: "reply", text: "Done." },
  );
  await chatUntilPaused("e2e-gate", "1 + 1?");
  await expect(rows).toHaveCount(1, { timeout: 15_000 });
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(/approvals\.list/, async (route) => {
    await held;
    // A request the page gave up meanwhile (a refresh replaced by a newer one) is gone.
    await route.continue().catch(() => undefined);
  });
  const other = await page.context().newPage();
  await other.goto(`${baseURL}/dashboard/agents/e2e-gate#approvals`);
  const otherPanel = other.getByRole("region", { name: "Approvals" });
  await otherPanel.getByRole("button", { name: "Approve" }).click();
  await expect(otherPanel.getByTestId("approval-outcome")).toContainText("Done.");
  await other.close();
  await rows.first().getByRole("button", { name: "Approve" }).click();
  await expect(outcome).toHaveAttribute("role", "alert");
  await expect(outcome).toContainText(/^Not decided: /);
  await expect(rows).toHaveCount(1);
  release();
  await page.unroute(/approvals\.list/);
  await expect(rows).toHaveCount(0);
  await expect(panel).toContainText("No tool calls are waiting for approval.");
});

test("a chat in the dashboard that pauses says which calls wait, and they are listed at once", async ({
  page,
}) => {
  await createAgent({
    aid: "e2e-gate-chat",
    mcp_servers: [{ name: "calc", url: mcp.url, approval_required_tools: ["*"] }],
  });
  await page.goto(`${baseURL}/login`);
  await signInHere(page);
  await page.goto(`${baseURL}/dashboard/agents/e2e-gate-chat`);
  service.fake.behave(
    { kind: "tools", calls: [{ name: "lookup", arguments: { key: "a" }, id: "d1" }] },
    { kind: "reply", text: "It is value-of-a." },
  );
  await page.getByLabel("Message", { exact: true }).fill("Look a up");
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByTestId("chat-waiting")).toHaveText(
    "The model asked for lookup (calc), which needs approval: decide under Approvals. The reply then appears in this conversation.",
  );
  const panel = page.getByRole("region", { name: "Approvals" });
  await expect(panel.getByTestId("approval")).toHaveCount(1);
  await panel.getByRole("button", { name: "Approve" }).click();
  await expect(panel.getByTestId("approval-outcome")).toContainText("It is value-of-a.");
});
