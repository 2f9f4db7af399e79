import { TEST_ADMIN_KEY } from "../helpers/admin-key";
import { expect, screenshot, test } from "./fixtures";
import {
  api,
  chatAsAdmin,
  createAgents,
  navigate,
  nearest,
  paintedColour,
  signInWithKey,
  tokenColour,
} from "./helpers";

/**
 * One agent's page: "New agent" never overwrites, edits say they were saved and refuse an empty
 * name, the chat reads like a chat (newest in view, scrollable by keyboard, several lines,
 * times), runs page, Run now's error goes with the next success, ids copy.
 */

test("New agent refuses an ID in use beside the field, with a link to that agent", async ({
  page,
}) => {
  await createAgents([{ aid: "zexisting", name: "Keep Me", temperature: 0.3, prompt: "Stay." }]);
  await signInWithKey(page);
  await page.goto("/dashboard/agents/new");
  await page.getByLabel("Agent ID").fill("zexisting");
  await page.getByLabel("Name", { exact: true }).fill("Overwriter");
  await page.getByRole("button", { name: "Create agent" }).click();
  const error = page.locator("#aid-error");
  await expect(error).toContainText("An agent with this ID exists already");
  await expect(page.getByLabel("Agent ID")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByRole("alert").filter({ hasText: "Not saved" })).toBeVisible();
  await screenshot(page, "agent-create-exists");
  // Nothing was overwritten.
  expect(await (await api("/agents/zexisting")).json()).toMatchObject({
    name: "Keep Me",
    temperature: 0.3,
    prompt: "Stay.",
  });
  // The form holds what was typed: leaving it asks first.
  await error.getByRole("link", { name: "open zexisting" }).click();
  await page
    .getByRole("dialog", { name: "Leave without saving?" })
    .getByRole("button", { name: "Leave" })
    .click();
  await expect(page).toHaveURL(/\/dashboard\/agents\/zexisting$/);
  await expect(page.getByRole("heading", { name: "Keep Me" })).toBeVisible();
});

test("the new-agent form says what empty fields become", async ({ page }) => {
  await signInWithKey(page);
  await page.goto("/dashboard/agents/new");
  await expect(page.getByText("(empty = unlimited)")).toHaveCount(0);
  await expect(page.getByText("An empty limit takes the service's default")).toBeVisible();
  await expect(page.getByLabel("Messages per day")).toHaveAttribute(
    "placeholder",
    "default: 1,000",
  );
  await expect(page.getByLabel("Messages in total")).toHaveAttribute(
    "placeholder",
    "default: no limit",
  );
});

test("an edit says it was saved, and an empty name is refused, not silently kept", async ({
  page,
}) => {
  await createAgents([{ aid: "zedit", name: "Before" }]);
  await signInWithKey(page);
  await page.goto("/dashboard/agents/zedit");
  await page.getByLabel("Name", { exact: true }).fill("");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.locator("#name-error")).toHaveText("must not be empty");
  await expect(page.getByRole("alert").filter({ hasText: "Not saved" })).toBeVisible();
  expect((await (await api("/agents/zedit")).json()).name).toBe("Before");

  await page.getByLabel("Name", { exact: true }).fill("After");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();
  await expect(page.getByRole("heading", { name: "After" })).toBeVisible();
});

test("the chat keeps the newest message in view, scrolls by keyboard, takes several lines and shows times", async ({
  page,
}) => {
  await createAgents([{ aid: "zchat" }]);
  // Twelve exchanges in the admin's default thread, more than the log shows at once.
  for (let i = 0; i < 12; i++) {
    const reply = await fetch(`${process.env.E2E_BASE_URL}/zchat/chat?q=question+${i}`, {
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` },
    });
    expect(reply.status).toBe(200);
  }
  await signInWithKey(page);
  await page.goto("/dashboard/agents/zchat");
  const log = page.getByTestId("chat-log");
  await expect(log).toContainText("question 11");
  const atBottom = () =>
    log.evaluate((element) => element.scrollHeight - element.scrollTop - element.clientHeight < 2);
  await expect.poll(atBottom).toBe(true);
  expect(await log.evaluate((element) => element.scrollHeight > element.clientHeight)).toBe(true);

  // The log takes focus, and keys scroll it.
  await log.focus();
  await expect(log).toBeFocused();
  await page.keyboard.press("Home");
  await expect.poll(() => log.evaluate((element) => element.scrollTop)).toBe(0);
  await page.keyboard.press("End");
  await expect.poll(atBottom).toBe(true);

  // Shift+Enter makes a new line; Enter sends.
  const input = page.getByLabel("Message", { exact: true });
  await input.fill("line one");
  await input.press("Shift+Enter");
  await input.pressSequentially("line two");
  await expect(input).toHaveValue("line one\nline two");
  await input.press("Enter");
  await expect(log.locator('[data-role="user"]').last()).toContainText("line one\nline two");
  await expect(log).toContainText("echo: line one\nline two");
  await expect.poll(atBottom).toBe(true);
  const asked = log.locator('[data-role="user"]').last().locator("time");
  await expect(asked).toHaveText("just now");
  // The exact time on hover: ISO date, 24-hour clock, the zone.
  await expect(asked).toHaveAttribute("title", /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \S/);
  await screenshot(page, "agent-chat-long");
});

test("runs page back through the history, and Run now's error goes with the next success", async ({
  page,
}) => {
  await createAgents([{ aid: "zruns", autonomous_prompt: "Tick." }]);
  for (let i = 0; i < 23; i++) {
    const run = await api("/agents/zruns/runs", { method: "POST" });
    expect(run.status).toBeLessThan(300);
  }
  await signInWithKey(page);
  await page.goto("/dashboard/agents/zruns");
  await expect(page.getByTestId("run-row")).toHaveCount(20);
  await expect(page.getByTestId("runs-shown")).toHaveText("20 of 23 runs shown");
  await page.getByRole("button", { name: "Show older runs" }).click();
  await expect(page.getByTestId("run-row")).toHaveCount(23);
  await expect(page.getByRole("button", { name: "Show older runs" })).toHaveCount(0);

  // The instruction goes away behind the page's back: Run now fails, and says so.
  await api("/agents", {
    method: "POST",
    body: JSON.stringify({ aid: "zruns", autonomous_prompt: null }),
  });
  await page.getByRole("button", { name: "Run now" }).click();
  await expect(page.getByTestId("run-now-error")).toContainText("Run now failed:");
  // It comes back: the next Run now succeeds, and the error is gone.
  await api("/agents", {
    method: "POST",
    body: JSON.stringify({ aid: "zruns", autonomous_prompt: "Tick again." }),
  });
  await page.getByRole("button", { name: "Run now" }).click();
  await expect(page.getByTestId("run-row").first()).toContainText("Tick again.");
  await expect(page.getByTestId("run-now-error")).toHaveCount(0);
});

test("ids and keys copy to the clipboard", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await createAgents([{ aid: "zcopy" }]);
  await signInWithKey(page);
  await page.goto("/dashboard/agents/zcopy");
  await page.getByRole("button", { name: "Copy agent ID" }).click();
  await expect(page.getByRole("button", { name: "Copy agent ID" })).toHaveText("Copied");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("zcopy");
});

test("the OpenAI panel gives the base URL and an SDK snippet for this agent, to copy", async ({
  page,
  context,
  baseURL,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await createAgents([{ aid: "zopenai", chat_access: "key" }]);
  await signInWithKey(page);
  await page.goto("/dashboard/agents/zopenai");
  const panel = page.getByRole("region", { name: "OpenAI-compatible API" });
  const snippet = panel.getByTestId("openai-snippet");
  await expect(snippet).toContainText('model: "zopenai"');
  await expect(snippet).toContainText("A key of this agent (Keys, below).");
  await panel.getByRole("button", { name: "Copy base URL" }).click();
  const base = await page.evaluate(() => navigator.clipboard.readText());
  expect(base).toMatch(/\/v1$/);
  await panel.getByRole("button", { name: "Copy snippet" }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(
    `baseURL: ${JSON.stringify(base)}`,
  );
  await panel.getByRole("button", { name: "Copy Responses snippet" }).click();
  const responses = await page.evaluate(() => navigator.clipboard.readText());
  expect(responses).toContain(`baseURL: ${JSON.stringify(base)}`);
  expect(responses).toContain('client.responses.create({\n  model: "zopenai"');
  await expect(panel.getByTestId("responses-snippet")).toHaveText(responses);
  // The base URL it gives answers as OpenAI's API does.
  const models = await fetch(`${baseURL}/v1/models`, {
    headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` },
  });
  expect((await models.json()).data.map((m: { id: string }) => m.id)).toContain("zopenai");
});

test("the MCP panel gives the agent's MCP URL and a client configuration, to copy", async ({
  page,
  context,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await createAgents([{ aid: "zmcp", chat_access: "key" }]);
  await signInWithKey(page);
  await page.goto("/dashboard/agents/zmcp");
  const panel = page.getByRole("region", { name: "MCP server" });
  await panel.getByRole("button", { name: "Copy MCP URL" }).click();
  const url = await page.evaluate(() => navigator.clipboard.readText());
  expect(url).toMatch(/\/zmcp\/mcp$/);
  const config = panel.getByTestId("mcp-config");
  await expect(config).toContainText(`"url": ${JSON.stringify(url)}`);
  // biome-ignore lint/suspicious/noTemplateCurlyInString: VS Code's own input variable, verbatim.
  await expect(config).toContainText('"Authorization": "Bearer ${input:agent-key}"');
  await panel.getByRole("button", { name: "Copy configuration" }).click();
  expect(
    JSON.parse(await page.evaluate(() => navigator.clipboard.readText())).servers.zmcp.url,
  ).toBe(url);
  // The URL it gives is the agent's MCP server.
  const listed = await fetch(url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TEST_ADMIN_KEY}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  expect((await listed.json()).result.tools.map((tool: { name: string }) => tool.name)).toEqual([
    "chat",
  ]);
});

test("the A2A panel gives the agent's card URL and a client snippet, to copy", async ({
  page,
  context,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await createAgents([{ aid: "za2a", name: "Card holder", chat_access: "key" }]);
  await signInWithKey(page);
  await page.goto("/dashboard/agents/za2a");
  const panel = page.getByRole("region", { name: "A2A server" });
  await panel.getByRole("button", { name: "Copy agent card URL" }).click();
  const url = await page.evaluate(() => navigator.clipboard.readText());
  expect(url).toMatch(/\/za2a\/\.well-known\/agent-card\.json$/);
  await expect(panel.getByTestId("a2a-snippet")).toContainText("fetchImpl: withKey");
  await panel.getByRole("button", { name: "Copy A2A snippet" }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(
    '"/za2a/.well-known/agent-card.json"',
  );
  // The URL it gives is the agent's card, naming its A2A server.
  const card = await (await fetch(url)).json();
  expect(card.name).toBe("Card holder");
  expect(card.supportedInterfaces[0].url).toMatch(/\/za2a\/a2a$/);
});

test("a cron schedule is said in words as it is typed, refused beside its field when wrong, and shown with the next run", async ({
  page,
}) => {
  await createAgents([{ aid: "zcron", autonomous_prompt: "Report." }]);
  await signInWithKey(page);
  await page.goto("/dashboard/agents/zcron");
  const cron = page.getByLabel("Cron schedule");
  await cron.fill("0 9 * * 1-5");
  await page.getByLabel("Time zone").fill("Europe/Berlin");
  await expect(page.locator("#autonomous_cron-hint")).toHaveText(
    "At 09:00, Monday through Friday, Europe/Berlin",
  );
  await page.getByLabel("Time zone").fill("Mars/Olympus");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.locator("#autonomous_timezone-error")).toContainText(
    "is not an IANA time zone name",
  );
  await page.getByLabel("Time zone").fill("Europe/Berlin");
  await page.getByLabel("Run on a schedule").check();
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();
  const agent = await (await api("/agents/zcron")).json();
  expect(agent).toMatchObject({
    autonomous_cron: "0 9 * * 1-5",
    autonomous_timezone: "Europe/Berlin",
  });
  // 09:00 Berlin is 07:00 or 08:00 UTC, on a weekday.
  const next = new Date(agent.autonomous_next_run_at);
  expect([7, 8]).toContain(next.getUTCHours());
  expect([1, 2, 3, 4, 5]).toContain(next.getUTCDay());
  await expect(page.getByTestId("runs-summary")).toContainText(
    "At 09:00, Monday through Friday, Europe/Berlin (0 9 * * 1-5); next run",
  );
});

test("an admin pauses an agent (its chats refused, nothing lost) and resumes it", async ({
  page,
  baseURL,
}) => {
  await createAgents([{ aid: "zpause" }]);
  const chat = () => fetch(`${baseURL}/zpause/chat?q=hello`);
  expect((await chat()).status).toBe(200);
  await signInWithKey(page);
  await page.goto("/dashboard/agents/zpause");
  await page.getByRole("button", { name: "Pause agent" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Pause agent" }).click();
  await expect(page.getByTestId("agent-paused")).toBeVisible();
  const refused = await chat();
  expect(refused.status).toBe(403);
  expect(await refused.json()).toMatchObject({ code: "agent_paused" });
  // Nothing lost: the message counted before the pause is still there.
  expect((await (await api("/agents/zpause")).json()).quota.message_count_total).toBe(1);
  await page.getByRole("button", { name: "Resume agent" }).click();
  await expect(page.getByTestId("agent-paused")).toHaveCount(0);
  expect((await chat()).status).toBe(200);
});

test("a key made with an end day and its own rate shows both, and the service holds it to them", async ({
  page,
  baseURL,
}) => {
  await createAgents([{ aid: "zkeylimits", rate_limit_rpm: 30 }]);
  await signInWithKey(page);
  await page.goto("/dashboard/agents/zkeylimits");
  const next = new Date(Date.now() + 7 * 24 * 3600_000).toISOString().slice(0, 10);
  await page.getByLabel("Key name").fill("trial partner");
  await page.getByLabel("Works until (UTC, optional)").fill(next);
  await page.getByLabel("Chats a minute (optional)").fill("1");
  await page.getByRole("button", { name: "Make key" }).click();
  const key = (await page.getByTestId("new-key").locator("code").textContent()) ?? "";
  const row = page.getByTestId("key-row").filter({ hasText: "trial partner" });
  await expect(row).toContainText("1 chats a minute");
  await expect(row).toContainText("until");
  const listed = (await (await api("/agents/zkeylimits/keys")).json()).keys[0];
  expect(listed).toMatchObject({ expires_at: `${next}T23:59:59.000Z`, rate_limit_rpm: 1 });
  const ask = () =>
    fetch(`${baseURL}/zkeylimits/chat?q=hi`, { headers: { authorization: `Bearer ${key}` } });
  expect((await ask()).status).toBe(200);
  expect((await ask()).status).toBe(429);
});

test("unsaved edits ask before a link leaves them, and before a reload or close", async ({
  page,
}) => {
  await createAgents([{ aid: "zunsaved", name: "Unsaved" }]);
  await signInWithKey(page);
  await page.goto("/dashboard/agents/zunsaved");
  const name = page.getByLabel("Name", { exact: true });
  await name.fill("Changed but not saved");

  await navigate(page, "Agents");
  const dialog = page.getByRole("dialog", { name: "Leave without saving?" });
  await expect(dialog).toBeVisible();
  await expect(page).toHaveURL(/\/dashboard\/agents\/zunsaved$/);
  await dialog.getByRole("button", { name: "Stay" }).click();
  await expect(dialog).toBeHidden();
  await expect(name).toHaveValue("Changed but not saved");
  await navigate(page, "Agents");
  await dialog.getByRole("button", { name: "Leave" }).click();
  await expect(page.getByRole("heading", { name: "Agents", exact: true })).toBeVisible();
  expect((await (await api("/agents/zunsaved")).json()).name).toBe("Unsaved");

  // Saved edits leave without a word.
  await page.goto("/dashboard/agents/zunsaved");
  await name.fill("Saved");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();
  await navigate(page, "Agents");
  await expect(page.getByRole("heading", { name: "Agents", exact: true })).toBeVisible();

  // A reload or a closed tab: the browser's own question (which it asks of a page the user
  // has acted on: a click, then typing).
  await page.goto("/dashboard/agents/zunsaved");
  await name.click();
  await name.fill("Changed again");
  const asked = page.waitForEvent("dialog");
  await page.close({ runBeforeUnload: true });
  const question = await asked;
  expect(question.type()).toBe("beforeunload");
  await question.dismiss();
});

test("meters turn amber from 80% of a limit, as the README says, and red at it", async ({
  page,
}) => {
  await createAgents([
    {
      aid: "zmeters",
      autonomous_prompt: "Tick.",
      quota: { autonomous_limit_total: 3, message_limit_daily: 5, message_limit_monthly: 4 },
    },
  ]);
  expect((await api("/agents/zmeters/quota/reset", { method: "POST" })).status).toBe(200);
  for (let i = 0; i < 2; i++) {
    expect((await api("/agents/zmeters/runs", { method: "POST" })).status).toBeLessThan(300);
  }
  for (let i = 0; i < 4; i++) await chatAsAdmin("zmeters", `question ${i}`);
  await signInWithKey(page);
  await page.goto("/dashboard/agents/zmeters");
  const colours = {
    green: await tokenColour(page, "--ok"),
    amber: await tokenColour(page, "--warn"),
    red: await tokenColour(page, "--danger"),
  };
  const meter = (name: string) => page.getByRole("meter", { name: new RegExp(`^${name}:`) });
  // 2 of 3 runs is 67%: green. 4 of 5 messages today is 80%: amber. 4 of 4 this month: red.
  expect(nearest(await paintedColour(meter("Runs total")), colours)).toBe("green");
  expect(nearest(await paintedColour(meter("Msgs/day")), colours)).toBe("amber");
  expect(nearest(await paintedColour(meter("Msgs/month")), colours)).toBe("red");
});
