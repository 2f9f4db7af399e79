import { TEST_ADMIN_KEY } from "../helpers/admin-key";
import { startMcpServer, type TestMcpServer } from "../helpers/mcp-server";
import { type ModelServer, startModelServer } from "../helpers/model-server";
import { expect, screenshot, test } from "./fixtures";
import { wordsBrokenMidWord } from "./helpers";

/**
 * Tools in the dashboard (issue #17): a service of its own on the fake model (the shared one
 * answers with `echo`), an agent with the loopback MCP server, a chat whose model calls a tool
 * (shown folded above the reply, live and from the thread), and the agent's Tools panel.
 */

let service: ModelServer;
let mcp: TestMcpServer;
let baseURL: string;

test.beforeAll(async () => {
  mcp = await startMcpServer();
  // Loopback, where the test's MCP server is, is reached only when listed.
  service = await startModelServer("pglite", { SCHEDULER: "off", MCP_ALLOWED_HOSTS: "127.0.0.1" });
  baseURL = `http://localhost:${new URL(service.server.url).port}`;
  const created = await fetch(`${baseURL}/agents`, {
    method: "POST",
    headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({
      aid: "e2e-tools",
      mcp_servers: [{ name: "calc", url: mcp.url, allowed_tools: ["add", "lookup"] }],
    }),
  });
  expect(created.status).toBe(201);
});

test.afterAll(async () => {
  await service?.stop();
  await mcp?.close();
});

test("the chat shows a reply's tool calls folded, and the agent page lists the tools", async ({
  page,
}) => {
  await page.goto(`${baseURL}/login`);
  await page.getByLabel("Admin API key", { exact: true }).fill(TEST_ADMIN_KEY);
  await page.getByRole("button", { name: "Sign in with the key" }).click();
  await expect(page.getByTestId("who")).toHaveText("Owner (ADMIN_API_KEY)");
  await page.goto(`${baseURL}/dashboard/agents/e2e-tools`);

  const servers = page.getByTestId("tool-server");
  await expect(servers).toHaveCount(1);
  await expect(servers).toContainText("calc");
  await expect(servers.getByRole("row", { name: /add Adds two numbers\. yes/ })).toBeVisible();
  await expect(servers.getByRole("row", { name: /delete_everything .* no/ })).toBeVisible();

  service.fake.behave(
    { kind: "tools", calls: [{ name: "add", arguments: { a: 40, b: 2 } }] },
    { kind: "reply", text: "The answer is 42." },
  );
  await page.getByLabel("Message", { exact: true }).fill("What is 40 + 2?");
  await page.getByRole("button", { name: "Send" }).click();
  const log = page.getByTestId("chat-log");
  await expect(log).toContainText("The answer is 42.");
  // The exchange as stored replaces the one streamed in: open the stored one's calls.
  await expect(log.getByTestId("streaming-reply")).toHaveCount(0);
  const calls = log.getByTestId("tool-calls");
  await expect(calls).toHaveCount(1);
  await expect(calls).toContainText("Called add");
  // Folded: the result shows only once opened.
  await expect(calls.getByText('{"a":40,"b":2}')).toBeHidden();
  await calls.getByText("Called add").click();
  await expect(calls.getByText('{"a":40,"b":2}')).toBeVisible();
  await expect(calls.locator("pre").nth(1)).toHaveText("42");
  await expect(calls).toContainText("calc / add");
  await screenshot(page, "agent-tools");
  expect(mcp.calls).toEqual([{ name: "add", arguments: { a: 40, b: 2 } }]);

  // At 390 px the tool calls and the tools list stay inside their panels (long results and
  // schemas wrap or scroll within them). The rest of the page's narrow layout is not ours here.
  await page.setViewportSize({ width: 390, height: 800 });
  const overflowing = await page.evaluate(
    () =>
      [
        ...document.querySelectorAll('[data-testid="tool-calls"], [data-testid="tool-server"]'),
      ].filter((element) => {
        const panel = element.closest("section");
        return panel && element.getBoundingClientRect().right > panel.getBoundingClientRect().right;
      }).length,
  );
  expect(overflowing).toBe(0);
  // Tool names stay whole on a phone ("delete_everything", not "delete_ever ything").
  expect(await wordsBrokenMidWord(page, '[data-testid="tool-server"] :is(th, td)')).toEqual([]);
});

test("an admin adds, edits, lists and removes an MCP server in the agent page, secrets never shown", async ({
  page,
}) => {
  const created = await fetch(`${baseURL}/agents`, {
    method: "POST",
    headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ aid: "e2e-mcp-edit" }),
  });
  expect(created.status).toBe(201);
  const agent = async () =>
    (
      await fetch(`${baseURL}/agents/e2e-mcp-edit`, {
        headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` },
      })
    ).json();
  await page.goto(`${baseURL}/login`);
  await page.getByLabel("Admin API key", { exact: true }).fill(TEST_ADMIN_KEY);
  await page.getByRole("button", { name: "Sign in with the key" }).click();
  await expect(page.getByTestId("who")).toHaveText("Owner (ADMIN_API_KEY)");
  await page.goto(`${baseURL}/dashboard/agents/e2e-mcp-edit`);
  const tools = page.getByRole("region", { name: "Tools" });

  // Added with a secret header; a bad URL is refused beside its field first.
  await tools.getByRole("button", { name: "Add MCP server" }).click();
  const form = page.getByRole("form", { name: "Add an MCP server" });
  await form.getByLabel("Server name").fill("calc");
  await form.getByLabel("Server URL").fill("not a url");
  await form.getByRole("button", { name: "Add a header" }).click();
  await form.getByLabel("Header", { exact: true }).fill("X-Api-Key");
  await form.getByLabel("Secret value").fill("sk-e2e-very-secret-value-1234");
  await form.getByRole("button", { name: "Add server" }).click();
  await expect(form.locator("#server_url-error")).toContainText("http(s) URL");
  await form.getByLabel("Server URL").fill(mcp.url);
  await form.getByRole("button", { name: "Add server" }).click();
  await expect(tools.getByRole("status").filter({ hasText: "Saved calc." })).toBeVisible();
  const server = tools.getByTestId("tool-server");
  await expect(server.getByRole("row", { name: /add Adds two numbers\. yes/ })).toBeVisible();
  // The secret is stored encrypted and never comes back: only its last four characters.
  const stored = (await agent()).mcp_servers[0];
  expect(stored.headers["X-Api-Key"]).toEqual({ secret: true, hint: "…1234" });
  expect(JSON.stringify(await agent())).not.toContain("very-secret");
  expect(mcp.headers.at(-1)?.["x-api-key"]).toBe("sk-e2e-very-secret-value-1234");

  // Edited: the secret kept as it is, the tools narrowed to one.
  await tools.getByRole("button", { name: "Edit calc" }).click();
  const edit = page.getByRole("form", { name: "Edit MCP server calc" });
  await expect(edit.getByLabel("Its value")).toHaveValue("keep");
  await expect(edit.getByRole("option", { name: "Keep the stored secret (…1234)" })).toHaveCount(1);
  await edit.getByLabel("Tools the agent may call").fill("add");
  await edit.getByRole("button", { name: "Save server" }).click();
  await expect(tools.getByRole("status").filter({ hasText: "Saved calc." })).toBeVisible();
  await tools.getByRole("button", { name: "List tools now" }).click();
  await expect(server.getByRole("row", { name: /lookup .* no/ })).toBeVisible();
  expect((await agent()).mcp_servers[0]).toMatchObject({
    allowed_tools: ["add"],
    headers: { "X-Api-Key": { secret: true, hint: "…1234" } },
  });
  const before = mcp.headers.length;
  await tools.getByRole("button", { name: "List tools now" }).click();
  await expect.poll(() => mcp.headers.length).toBeGreaterThan(before);
  expect(mcp.headers.at(-1)?.["x-api-key"]).toBe("sk-e2e-very-secret-value-1234");

  // At 390 px the form fits the screen: no sideways scroll.
  await page.setViewportSize({ width: 390, height: 800 });
  await tools.getByRole("button", { name: "Edit calc" }).click();
  await expect(page.getByRole("form", { name: "Edit MCP server calc" })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(
    true,
  );
  await screenshot(page, "mcp-server-form-390");
  await page
    .getByRole("form", { name: "Edit MCP server calc" })
    .getByRole("button", { name: "Cancel" })
    .click();

  // Removed, after asking.
  await tools.getByRole("button", { name: "Remove calc" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Remove server" }).click();
  await expect(tools.getByRole("status").filter({ hasText: "Removed calc." })).toBeVisible();
  await expect(tools.getByTestId("tool-server")).toHaveCount(0);
  expect((await agent()).mcp_servers).toEqual([]);
});
