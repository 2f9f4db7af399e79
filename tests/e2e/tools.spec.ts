import { TEST_ADMIN_KEY } from "../helpers/context";
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
  service = await startModelServer("pglite", { SCHEDULER: "off" });
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
  await expect(page.getByTestId("who")).toHaveText("Admin (API key)");
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
