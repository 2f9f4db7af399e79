import { expect, screenshot, test } from "./fixtures";
import { api, createAgents, navigate, scrollsSideways, signInWithKey, WIDTHS } from "./helpers";

/** Usage charts with their table, and the price table, in real Chromium at both widths. */

test.beforeAll(async () => {
  await createAgents([{ aid: "metered-ui", name: "Metered", rate_limit_rpm: null }]);
  // The shared service answers with the built-in echo provider, whose replies are the model
  // `echo`'s whichever model an agent names: that is the model to price.
  const priced = await api("/prices/echo", {
    method: "PUT",
    body: JSON.stringify({ input_per_million: 1000, output_per_million: 2000 }),
  });
  expect(priced.status).toBe(200);
  for (const q of ["first question", "second question"]) {
    const chat = await api(`/metered-ui/chat?q=${encodeURIComponent(q)}`);
    expect(chat.status).toBe(200);
  }
});

for (const { name, viewport, suffix } of WIDTHS) {
  test.describe(name, () => {
    test.use({ viewport });

    test("an agent's usage shows as three charts, and as a table of every day", async ({
      page,
    }) => {
      // What the service counted (a retried worker chats again in its beforeAll).
      const counted = (await (await api("/agents/metered-ui/usage")).json()).totals.messages;
      expect(counted).toBeGreaterThanOrEqual(2);
      await signInWithKey(page);
      await page.goto("/dashboard/agents/metered-ui");
      const usage = page.getByRole("region", { name: "Usage, last 30 days" });
      await expect(usage.getByTestId("usage-totals")).toContainText(
        `${counted} messages delivered, 0 runs succeeded`,
      );
      const figures = usage.getByTestId("usage-chart");
      await expect(figures).toHaveCount(3);
      // uPlot drew each chart on a canvas, with its legend.
      await expect(usage.locator("figure canvas")).toHaveCount(3);
      await expect(figures.first().locator(".u-legend")).toContainText("Messages");
      await expect(figures.first()).toContainText("Messages and runs");
      expect(await scrollsSideways(page)).toBe(false);
      await screenshot(page, `usage-agent-${suffix}`);

      await usage.getByRole("button", { name: "Show as table" }).click();
      await expect(usage.getByRole("button", { name: "Show as charts" })).toBeVisible();
      const table = usage.getByTestId("usage-table");
      await expect(table.locator("tbody tr")).toHaveCount(30);
      const today = new Date().toISOString().slice(0, 10);
      const row = table.getByRole("row", { name: new RegExp(`^${today}`) });
      await expect(row.getByRole("cell").first()).toHaveText(String(counted));
      // Priced at 1,000 and 2,000 a million: the cost is there, not "no price".
      await expect(row.getByRole("cell").nth(4)).not.toHaveText("no price");
      expect(await scrollsSideways(page)).toBe(false);
    });

    test("the overview charts every agent's usage and names the top agents", async ({ page }) => {
      await signInWithKey(page);
      await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
      const usage = page.getByRole("region", { name: "Usage, last 30 days" });
      await expect(usage.locator("figure canvas")).toHaveCount(3);
      // The agents that used the most tokens, most first, as the API ranks them (other tests'
      // agents may outrank this file's).
      const top = (await (await api("/usage?top=5")).json()).top_agents as { name: string }[];
      const rows = page.getByTestId("top-agents").locator("tbody tr");
      await expect(rows).toHaveCount(top.length);
      await expect(rows.first()).toContainText(top[0]?.name ?? "");
      expect(await scrollsSideways(page)).toBe(false);
      await screenshot(page, `usage-overview-${suffix}`);
    });

    test("an admin sets, sees and deletes a model's price", async ({ page }) => {
      const model = `ui-model-${suffix}/v1`;
      await signInWithKey(page);
      await navigate(page, "Prices");
      await expect(page.getByRole("heading", { name: "Prices", level: 1 })).toBeVisible();
      const form = page.getByRole("form", { name: "Set a price" });
      await form.getByLabel("Model").fill(model);
      await form.getByLabel("Input, per million tokens").fill("-1");
      await form.getByLabel("Output, per million tokens").fill("0.6");
      await form.getByRole("button", { name: "Set price" }).click();
      await expect(form.locator("#input_per_million-error")).toContainText(
        "must be a number from 0",
      );
      await form.getByLabel("Input, per million tokens").fill("0.15");
      await form.getByRole("button", { name: "Set price" }).click();
      await expect(form.getByRole("status")).toHaveText(`Saved the price of ${model}.`);
      const row = page.getByTestId("prices").getByRole("row", { name: new RegExp(model) });
      await expect(row).toContainText("0.15");
      expect(await scrollsSideways(page)).toBe(false);
      await screenshot(page, `prices-${suffix}`);
      await row.getByRole("button", { name: "Delete" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Delete price" }).click();
      await expect(
        page.getByTestId("prices").getByRole("row", { name: new RegExp(model) }),
      ).toHaveCount(0);
      const prices = await (await api("/prices")).json();
      expect(prices.prices.map((p: { model: string }) => p.model)).not.toContain(model);
    });
  });
}

test("charts whose code cannot be fetched say so, and the rest of the page stays", async ({
  page,
}) => {
  await signInWithKey(page);
  // uPlot's code (script and style) fails to arrive, as when the service stops as a page opens.
  await page.route("**/_next/static/chunks/**", async (route) => {
    const response = await route.fetch();
    if ((await response.text()).includes("uplot")) return route.abort("connectionrefused");
    return route.fulfill({ response });
  });
  await page.goto("/dashboard/agents/metered-ui");
  const usage = page.getByRole("region", { name: "Usage, last 30 days" });
  const failed = usage.getByRole("alert").filter({ hasText: "The chart could not be loaded" });
  await expect(failed).toHaveCount(3);
  await expect(page.getByText("This page couldn’t load")).toHaveCount(0);
  await expect(page.getByRole("heading", { name: "Metered", level: 1 })).toBeVisible();
  await expect(usage.getByTestId("usage-totals")).toContainText("messages delivered, 0 runs");
  await usage.getByRole("button", { name: "Show as table" }).click();
  await expect(usage.getByTestId("usage-table").locator("tbody tr")).toHaveCount(30);

  // Once the code arrives again, Reload brings the charts.
  await page.unrouteAll({ behavior: "wait" });
  await usage.getByRole("button", { name: "Show as charts" }).click();
  await failed.first().getByRole("button", { name: "Reload" }).click();
  await expect(usage.locator("figure canvas")).toHaveCount(3);
});

test("the table lists today first, and its button says what it will show", async ({ page }) => {
  await signInWithKey(page);
  await page.goto("/dashboard/agents/metered-ui");
  const usage = page.getByRole("region", { name: "Usage, last 30 days" });
  await usage.getByRole("button", { name: "Show as table" }).click();
  const days = usage.getByTestId("usage-table").locator("tbody tr th");
  await expect(days).toHaveCount(30);
  const today = new Date();
  const daysAgo = (n: number) =>
    new Date(today.getTime() - n * 86_400_000).toISOString().slice(0, 10);
  await expect(days.first()).toHaveText(daysAgo(0));
  await expect(days.last()).toHaveText(daysAgo(29));
  // The button now offers the charts back.
  await usage.getByRole("button", { name: "Show as charts" }).click();
  await expect(usage.locator("figure canvas")).toHaveCount(3);
  await expect(usage.getByRole("button", { name: "Show as table" })).toBeVisible();
});

test("usage over a chosen range, by day or hour, kept in the URL and downloaded as the API's CSV", async ({
  page,
}) => {
  await signInWithKey(page);
  await page.goto("/dashboard/agents/metered-ui");
  const today = new Date().toISOString().slice(0, 10);
  const weekAgo = new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10);
  const controls = page.getByTestId("usage-range");
  await expect(controls.getByLabel("From (UTC day)")).toBeEditable();
  // Both days typed before the page has drawn the first: neither change may undo the other
  // (each used to write the whole range as last drawn, so the second cleared the first).
  await page.evaluate(
    ([from, to]) => {
      const type = (label: string, value: string) => {
        const input = [...document.querySelectorAll("input")].find(
          (candidate) => candidate.labels?.[0]?.textContent === label,
        ) as HTMLInputElement;
        Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")?.set?.call(
          input,
          value,
        );
        input.dispatchEvent(new Event("input", { bubbles: true }));
      };
      type("From (UTC day)", from as string);
      type("To (UTC day)", to as string);
    },
    [weekAgo, today],
  );
  const usage = page.getByRole("region", { name: `Usage, ${weekAgo} to ${today} (UTC)` });
  await usage.getByRole("button", { name: "Show as table" }).click();
  await expect(usage.getByTestId("usage-table").locator("tbody tr")).toHaveCount(7);
  await expect(page).toHaveURL(new RegExp(`usage_from=${weekAgo}.*usage_to=${today}`));

  // By hour, today only: 24 buckets; kept across a reload.
  await controls.getByLabel("From (UTC day)").fill(today);
  await controls.getByLabel("By").selectOption("hour");
  const hourly = page.getByRole("region", { name: `Usage, ${today} (UTC), by hour` });
  // Reload once the page has drawn the change: until then Next.js may still write the URL of
  // the change before (its router catches up with each replaceState in a transition).
  await expect(hourly).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`usage_from=${today}.*usage_by=hour`));
  await page.reload();
  await hourly.getByRole("button", { name: "Show as table" }).click();
  await expect(hourly.getByTestId("usage-table").locator("tbody tr")).toHaveCount(24);

  // The download is the API's own CSV of the same range.
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    controls.getByRole("button", { name: "Download CSV" }).click(),
  ]);
  const text = await (await download.createReadStream()).toArray();
  const csv = Buffer.concat(text as Buffer[]).toString("utf8");
  const viaApi = await api(
    `/agents/metered-ui/usage?granularity=hour&from=${today}T00:00:00Z&to=${today}T23:59:59Z`,
    { headers: { accept: "text/csv" } },
  );
  expect(csv).toBe(await viaApi.text());
  expect(viaApi.headers.get("content-disposition")).toBe(
    `attachment; filename="${download.suggestedFilename()}"`,
  );
  expect(download.suggestedFilename()).toMatch(new RegExp(`^usage-metered-ui-${today}-`));
  expect(csv.split("\r\n")[0]).toBe(
    "start,messages,runs,input_tokens,output_tokens,cost,unpriced,refused_quota,refused_rate",
  );
});

test("the breakdown says which model and which key spent what", async ({ page }) => {
  const key = (
    await (
      await api("/agents/metered-ui/keys", {
        method: "POST",
        body: JSON.stringify({ name: "breakdown key" }),
      })
    ).json()
  ).key;
  const chat = await fetch(`${process.env.E2E_BASE_URL}/metered-ui/chat?q=from+a+key`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(chat.status).toBe(200);
  await signInWithKey(page);
  await page.goto("/dashboard/agents/metered-ui");
  const panel = page.getByRole("region", { name: "Breakdown" });
  await expect(panel.getByTestId("usage-breakdown")).toContainText("echo");
  await panel.getByLabel("By").selectOption("key");
  const table = panel.getByTestId("usage-breakdown");
  await expect(table.getByRole("row", { name: /key 'breakdown key' 1 1/ })).toBeVisible();
  await expect(table).toContainText("the admin");
});
