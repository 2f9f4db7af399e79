import { expect, test } from "./fixtures";
import { api, chatAsAdmin, createAgents, signInWithKey } from "./helpers";

/**
 * The overview's message figures and its usage read one record (what was delivered), whatever
 * counters were reset since: a reset puts an agent's quota counters back to 0, not its history.
 * A deleted agent's messages go from both, with the agent.
 */

test.beforeAll(async () => {
  await createAgents([{ aid: "zfig-kept" }, { aid: "zfig-reset" }, { aid: "zfig-deleted" }]);
  for (const [aid, times] of [
    ["zfig-kept", 2],
    ["zfig-reset", 3],
    ["zfig-deleted", 2],
  ] as const) {
    for (let i = 0; i < times; i++) await chatAsAdmin(aid, `question ${i}`);
  }
  expect((await api("/agents/zfig-reset/quota/reset", { method: "POST" })).status).toBe(200);
  expect((await api("/agents/zfig-deleted", { method: "DELETE" })).status).toBe(204);
});

test("messages today on the card and in the usage are one figure, and each says what it counts", async ({
  page,
}) => {
  await signInWithKey(page);
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  // What the service recorded as delivered today (the last bucket of the series is today).
  const series = await (await api("/usage")).json();
  const today = series.points.at(-1).messages as number;
  expect(today).toBeGreaterThanOrEqual(5);

  const card = page.getByRole("region", { name: "Messages" });
  await expect(card.getByText(today.toLocaleString("en"), { exact: true })).toBeVisible();
  await expect(card).toContainText("delivered");
  await expect(card).toContainText("resetting counters does not change");

  const usage = page.getByRole("region", { name: "Usage, last 30 days" });
  await expect(usage.getByTestId("usage-totals")).toContainText("delivered");
  await usage.getByRole("button", { name: "Show as table" }).click();
  const day = new Date().toISOString().slice(0, 10);
  const row = usage.getByTestId("usage-table").getByRole("row", { name: new RegExp(`^${day}`) });
  await expect(row.getByRole("cell").first()).toHaveText(today.toLocaleString("en"));
});
