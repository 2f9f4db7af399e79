import { sampleProposal } from "../helpers/proposal";
import { expect, screenshot, test } from "./fixtures";
import { api, createAgents, navigate, signInWithKey } from "./helpers";
import { userWallet } from "./wallets";

/**
 * The agents list over many agents: sorting and filtering on the server over all of them, pages
 * with counts that keep their rows while the next loads and cannot skip, and the list's state in
 * the URL (Back and reload). 60 agents `zlist-000`…`zlist-059`; the ones at a limit come last in
 * aid order, on the third page.
 */

const PREFIX = "zlist-";
const aid = (i: number) => `${PREFIX}${String(i).padStart(3, "0")}`;

test.beforeAll(async () => {
  const agents: Record<string, unknown>[] = [];
  for (let i = 0; i < 60; i++) agents.push({ aid: aid(i), name: `List agent ${i}` });
  // At a limit: a total limit of 0, and a monthly autonomous limit of 0 (no messages needed).
  Object.assign(agents[57] as object, { quota: { message_limit_total: 0 } });
  Object.assign(agents[58] as object, { quota: { message_limit_total: 0 } });
  Object.assign(agents[59] as object, { quota: { autonomous_limit_monthly: 0 } });
  // Near one: 4 of 5 messages a day.
  Object.assign(agents[56] as object, { quota: { message_limit_daily: 5 } });
  await createAgents(agents);
  // From 0, also when a worker that failed runs this again on the same service.
  expect((await api(`/agents/${aid(56)}/quota/reset`, { method: "POST" })).status).toBe(200);
  for (let i = 0; i < 4; i++) {
    const chat = await fetch(`${process.env.E2E_BASE_URL}/${aid(56)}/chat?q=hi+${i}`);
    expect(chat.status).toBe(200);
  }
});

const rows = (page: import("@playwright/test").Page) =>
  page.getByTestId("agents-list").locator("tbody tr");

async function aidsShown(page: import("@playwright/test").Page) {
  return rows(page).evaluateAll((trs) =>
    trs.map((tr) => tr.getAttribute("data-testid")?.replace("agent-row-", "")),
  );
}

test("sorts and filters over all agents on the server, with the list in the URL", async ({
  page,
}) => {
  await signInWithKey(page);
  await page.goto(`/dashboard/agents?q=${PREFIX}`);
  await expect(page.getByTestId("pager-position")).toHaveText("1–25 of 60 agents · page 1 of 3");
  expect(await aidsShown(page)).toEqual(Array.from({ length: 25 }, (_, i) => aid(i)));

  // Quota use: the agents at a limit, on the third page in aid order, come first.
  await page.getByRole("button", { name: "Quota use" }).click();
  await expect(page).toHaveURL(/sort=quota/);
  await expect(rows(page).first()).toHaveAttribute("data-testid", `agent-row-${aid(57)}`);
  expect((await aidsShown(page)).slice(0, 4)).toEqual([aid(57), aid(58), aid(59), aid(56)]);
  await expect(page.getByRole("columnheader", { name: /Quota use/ })).toHaveAttribute(
    "aria-sort",
    "descending",
  );
  // Its tightest limit, named, with its share.
  const quotaUse = page.getByTestId(`agent-row-${aid(56)}`).getByTestId("quota-use");
  await expect(quotaUse).toContainText("Msgs/day");
  await expect(quotaUse).toContainText("4 / 5 · 80%");
  await screenshot(page, "agents-by-quota");

  // The state is in the URL: a reload shows the same list.
  await page.reload();
  await expect(rows(page).first()).toHaveAttribute("data-testid", `agent-row-${aid(57)}`);
  expect((await aidsShown(page)).slice(0, 4)).toEqual([aid(57), aid(58), aid(59), aid(56)]);

  // Filters apply over all agents too, with their count.
  await page.getByLabel("Quota", { exact: true }).selectOption("over");
  await expect(page.getByTestId("pager-position")).toHaveText("1–3 of 3 agents · page 1 of 1");
  expect(await aidsShown(page)).toEqual([aid(57), aid(58), aid(59)]);
  await page.getByLabel("Quota", { exact: true }).selectOption("near");
  await expect(page.getByTestId("pager-position")).toHaveText("1–4 of 4 agents · page 1 of 1");
  await page.getByLabel("Autonomous mode").selectOption("on");
  await expect(page.getByText("No agent matches “zlist-” with these filters.")).toBeVisible();

  // Back undoes one change at a time.
  await page.goBack();
  await expect(page.getByTestId("pager-position")).toHaveText("1–4 of 4 agents · page 1 of 1");
  await page.goBack();
  await expect(page.getByTestId("pager-position")).toHaveText("1–3 of 3 agents · page 1 of 1");
});

test("pages show counts, keep their rows while the next loads, and cannot skip", async ({
  page,
}) => {
  await signInWithKey(page);
  await page.goto(`/dashboard/agents?q=${PREFIX}`);
  await expect(page.getByTestId("pager-position")).toHaveText("1–25 of 60 agents · page 1 of 3");

  // A slow network: every listing takes 1.5 s more.
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route("**/api/trpc/agents.list*", async (route) => {
    await held;
    await route.continue();
  });
  const next = page.getByRole("button", { name: "Next page" });
  await next.click();
  // While page 2 loads: page 1's rows stay, the pager says so, and Next is off (no skipping).
  await expect(page.getByTestId("pager-position")).toHaveText("Loading…");
  await expect(next).toBeDisabled();
  await expect(page.getByTestId(`agent-row-${aid(0)}`)).toBeVisible();
  await next.click({ force: true });
  await screenshot(page, "agents-loading-page");
  release();
  await expect(page.getByTestId("pager-position")).toHaveText("26–50 of 60 agents · page 2 of 3");
  expect(await aidsShown(page)).toEqual(Array.from({ length: 25 }, (_, i) => aid(25 + i)));
  await expect(page).toHaveURL(/page=2/);
  await page.unroute("**/api/trpc/agents.list*");

  await next.click();
  await expect(page.getByTestId("pager-position")).toHaveText("51–60 of 60 agents · page 3 of 3");
  await expect(next).toBeDisabled();
  await page.getByRole("button", { name: "Previous page" }).click();
  await expect(page.getByTestId("pager-position")).toHaveText("26–50 of 60 agents · page 2 of 3");
  // Back returns to page 3, reload stays there.
  await page.goBack();
  await expect(page.getByTestId("pager-position")).toHaveText("51–60 of 60 agents · page 3 of 3");
  await page.reload();
  await expect(page.getByTestId("pager-position")).toHaveText("51–60 of 60 agents · page 3 of 3");

  await page.getByLabel("Per page").selectOption("50");
  await expect(page.getByTestId("pager-position")).toHaveText("1–50 of 60 agents · page 1 of 2");
});

test("the overview counts agents near and at a limit by the same rule, and links to them", async ({
  page,
}) => {
  await signInWithKey(page);
  await page.goto("/dashboard");
  const over = page.getByTestId("over-limit");
  const overCount = Number((await over.getByRole("link").textContent())?.split(" ")[0]);
  expect(overCount).toBeGreaterThanOrEqual(3);
  await over.getByRole("link").click();
  await expect(page).toHaveURL(/quota=over/);
  await expect(page.getByTestId("pager-position")).toContainText(`of ${overCount} agents`);
  await expect(page.getByTestId(`agent-row-${aid(59)}`)).toBeVisible();
});

test("an agent shows when it was last active and when its counters reset, and can be deleted", async ({
  page,
}) => {
  await api("/agents", { method: "POST", body: JSON.stringify({ aid: "zdelete-me" }) });
  await signInWithKey(page);
  await page.goto(`/dashboard/agents?q=${aid(56)}`);
  const lastActive = page
    .getByTestId(`agent-row-${aid(56)}`)
    .locator("time")
    .last();
  await expect(lastActive).toHaveText(/just now|minute/);
  await expect(lastActive).toHaveAttribute("title", /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \S/);
  await expect(page.getByTestId(`agent-row-${aid(0)}`)).toHaveCount(0);

  await page.goto(`/dashboard/agents/${aid(56)}`);
  await expect(page.getByTestId("quota-resets")).toContainText(
    /Daily counters reset in \d+ (hour|minute)s?/,
  );

  await page.goto("/dashboard/agents/zdelete-me");
  await page.getByRole("button", { name: "Delete agent" }).click();
  const dialog = page.getByRole("dialog", { name: "Delete zdelete-me?" });
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  expect((await api("/agents/zdelete-me")).status).toBe(200);
  await page.getByRole("button", { name: "Delete agent" }).click();
  await dialog.getByRole("button", { name: "Delete agent" }).click();
  await expect(page).toHaveURL(/\/dashboard\/agents\?deleted=zdelete-me/);
  await expect(page.getByText("Agent zdelete-me was deleted")).toBeVisible();
  expect((await api("/agents/zdelete-me")).status).toBe(404);
  await navigate(page, "Overview");
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
});

test("an agent stopped by a token budget shows that budget as its tightest limit", async ({
  page,
}) => {
  await createAgents([{ aid: "ztoken-capped", quota: { token_limit_daily: 80 } }]);
  // A question of about 50 tokens fits the budget when it starts (its input is held against
  // it); its echoed reply of as many again spends the day's budget (a reply that crosses it is kept).
  const chat = await fetch(
    `${process.env.E2E_BASE_URL}/ztoken-capped/chat?q=${encodeURIComponent("word ".repeat(40).trim())}`,
  );
  expect(chat.status).toBe(200);
  await signInWithKey(page);
  await page.goto("/dashboard/agents?q=ztoken-capped&quota=over");
  const row = page.getByTestId("agent-row-ztoken-capped");
  await expect(row.getByTestId("quota-use")).toContainText("100%");
  // The limit that is reached is named, with its meter, not only five nearly empty ones.
  await expect(row.getByTestId("quota-use")).toContainText("Tokens/day");
  await expect(row.getByRole("meter", { name: /^Tokens\/day/ })).toBeVisible();
});

test("a row is one line high at 1440 and names the model; on a phone, badges keep their size", async ({
  page,
}) => {
  const agents = Array.from({ length: 8 }, (_, i) => ({
    aid: `zrow-${i}`,
    name: `Row agent ${i}`,
    model: "gpt-4o-mini",
    autonomous_enabled: true,
    autonomous_minutes: 60,
    autonomous_prompt: "Tick.",
    quota: { message_limit_daily: 10 },
  }));
  await createAgents(agents);
  await signInWithKey(page);
  await page.goto("/dashboard/agents?q=zrow-");
  const rows = page.getByTestId("agents-list").locator("tbody tr");
  await expect(rows).toHaveCount(8);
  await expect(page.getByRole("columnheader", { name: "Model" })).toBeVisible();
  await expect(rows.first().getByRole("cell", { name: "gpt-4o-mini" })).toBeVisible();
  const heights = await rows.evaluateAll((trs) =>
    trs.map((tr) => tr.getBoundingClientRect().height),
  );
  for (const height of heights) expect(height).toBeLessThanOrEqual(64);
  await screenshot(page, "agents-compact-rows");

  // A status in a table that becomes cards keeps its pill's size on a phone.
  const made = await api("/v1/deployments", {
    method: "POST",
    body: JSON.stringify({
      request_id: `zrow-deployment-${Date.now()}`,
      user_address: userWallet.address,
      proposal: sampleProposal,
    }),
  });
  expect(made.status).toBe(201);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/dashboard/deployments");
  const badge = page.locator("td [data-status]").first();
  await expect(badge).toBeVisible();
  const widths = await badge.evaluate((element) => ({
    badge: element.getBoundingClientRect().width,
    cell: (element.closest("td") as HTMLElement).getBoundingClientRect().width,
  }));
  expect(widths.badge).toBeLessThan(widths.cell / 2);
});
