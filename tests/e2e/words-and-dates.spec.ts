import { expect, screenshot, test } from "./fixtures";
import {
  api,
  canvasText,
  chatAsAdmin,
  createAgents,
  recordCanvasText,
  signInWithKey,
  WIDTHS,
  wordsBrokenMidWord,
} from "./helpers";

/**
 * Tables and charts keep words whole ("AUTONOMOUS", "search_tickets", "0.00001875"), label a
 * chart of small costs with distinct figures, and write dates one way throughout: ISO dates,
 * 24-hour times, the time zone once.
 */

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

test.beforeAll(async () => {
  // A cheap model: three replies cost some hundred-thousandths. The shared service answers with
  // the built-in echo provider, whose replies are the model `echo`'s (a reply's cost is fixed
  // when it is stored, so other files' prices of it do not change these).
  const priced = await api("/prices/echo", {
    method: "PUT",
    body: JSON.stringify({ input_per_million: 1.25, output_per_million: 1.25 }),
  });
  expect(priced.status).toBe(200);
  await createAgents([
    {
      aid: "zwords",
      name: "Words",
      model: "zwords-model",
      autonomous_enabled: true,
      autonomous_minutes: 60,
      autonomous_prompt: "Tick.",
    },
    {
      // A long ID and name, and a schedule said at length, as a busy list has them.
      aid: "zwords-support-escalations-europe",
      name: "Support escalations for the European customers of the premium plan",
      model: "zwords-model",
      autonomous_enabled: true,
      autonomous_cron: "15 9 * * 1-5",
      autonomous_timezone: "Europe/Berlin",
      autonomous_prompt: "Tick.",
      quota: { message_limit_daily: 100, token_limit_monthly: 100000 },
    },
  ]);
  for (let i = 0; i < 3; i++) await chatAsAdmin("zwords", `question number ${i}`);
});

for (const { name, viewport, suffix } of WIDTHS) {
  test(`tables keep their words whole, ${name}`, async ({ page }) => {
    await page.setViewportSize(viewport);
    await signInWithKey(page);
    await page.goto("/dashboard/agents?q=zwords");
    await expect(page.getByTestId("agent-row-zwords")).toBeVisible();
    expect(await wordsBrokenMidWord(page, "main th, main td")).toEqual([]);

    await page.goto("/dashboard/agents/zwords");
    const usage = page.getByRole("region", { name: "Usage, last 30 days" });
    await usage.getByRole("button", { name: "Show as table" }).click();
    await expect(usage.getByTestId("usage-table")).toBeVisible();
    expect(await wordsBrokenMidWord(page, "main th, main td")).toEqual([]);
    await screenshot(page, `usage-table-words-${suffix}`);
  });
}

test("a chart of small costs has distinct labels, and its dates are ISO dates", async ({
  page,
}) => {
  await recordCanvasText(page);
  await signInWithKey(page);
  await page.goto("/dashboard/agents/zwords");
  const cost = page.getByTestId("usage-chart").filter({ hasText: "Cost" });
  await expect(cost.locator("canvas")).toHaveCount(1);
  await expect.poll(async () => (await canvasText(page, "Cost")).length).toBeGreaterThan(2);
  const drawn = await canvasText(page, "Cost");
  const numbers = new Set(drawn.filter((text) => /^[\d.,]+$/.test(text)));
  const dates = drawn.filter((text) => !/^[\d.,]+$/.test(text));
  expect(numbers.size, `the cost axis: ${[...numbers].join(", ")}`).toBeGreaterThan(1);
  expect(dates.length).toBeGreaterThan(0);
  for (const date of dates) expect(date).toMatch(ISO_DAY);

  // The legend gives the day under the pointer and its cost whole.
  // The pointer over the plot's last day (uPlot's overlay covers the plot, not its axes).
  const box = await cost.locator(".u-over").boundingBox();
  if (!box) throw new Error("the chart has no plot");
  await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2);
  const legend = cost.locator(".u-legend .u-value");
  await expect(legend.first()).toHaveText(new Date().toISOString().slice(0, 10));
  await expect(legend.nth(1)).toHaveText(/^0\.000\d+$/);
  expect(await wordsBrokenMidWord(page, ".u-legend")).toEqual([]);
});

test.describe("times in UTC", () => {
  test.use({ timezoneId: "UTC" });

  test("a time's hover text names the zone once, on a 24-hour clock", async ({ page }) => {
    await signInWithKey(page);
    await page.goto("/dashboard/agents?q=zwords");
    const time = page.getByTestId("agent-row-zwords").locator("time").last();
    await expect(time).toHaveAttribute("title", /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
  });
});

test.describe("times in Tokyo", () => {
  test.use({ timezoneId: "Asia/Tokyo" });

  test("a time's hover text gives the zone's name too", async ({ page }) => {
    await signInWithKey(page);
    await page.goto("/dashboard/agents?q=zwords");
    const time = page.getByTestId("agent-row-zwords").locator("time").last();
    await expect(time).toHaveAttribute(
      "title",
      /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} GMT\+9 \(Asia\/Tokyo\)$/,
    );
  });
});
