import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAi, startFakeOpenAi } from "../helpers/fake-openai";
import { type RunningServer, startServer, TEST_ADMIN_KEY } from "../helpers/server";

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };

/** Prices from MODEL_PRICES and over REST, usage as JSON and CSV, on the built service. */
describe("usage and prices over HTTP", () => {
  let server: RunningServer;
  let fake: FakeOpenAi;

  beforeAll(async () => {
    fake = await startFakeOpenAi();
    fake.behave({
      kind: "reply",
      text: "a reply",
      usage: { prompt_tokens: 500_000, completion_tokens: 100_000 },
    });
    server = await startServer({
      LLM_BASE_URL: fake.baseUrl,
      LLM_API_KEY: "sk-test",
      MODEL_PRICES: JSON.stringify({ "gpt-4o-mini": { input: 0.15, output: 0.6 } }),
    });
    const created = await fetch(`${server.url}/agents`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ aid: "metered" }),
    });
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    await server?.stop();
    await fake?.close();
  });

  it("prices replies at MODEL_PRICES, and takes prices over REST", async () => {
    const prices = await (await fetch(`${server.url}/prices`, { headers: admin })).json();
    expect(prices.prices).toMatchObject([
      { model: "gpt-4o-mini", input_per_million: 0.15, output_per_million: 0.6 },
    ]);
    const reply = await (
      await fetch(`${server.url}/metered/chat?q=hi`, { headers: { accept: "application/json" } })
    ).json();
    // 0.5 M × 0.15 + 0.1 M × 0.6
    expect(reply.usage).toMatchObject({ input_tokens: 500_000, cost: 0.135 });

    const set = await fetch(`${server.url}/prices/${encodeURIComponent("meta-llama/Llama-3")}`, {
      method: "PUT",
      headers: admin,
      body: JSON.stringify({ input_per_million: 0.2, output_per_million: 0.2 }),
    });
    expect(set.status).toBe(200);
    expect(await set.json()).toMatchObject({ model: "meta-llama/Llama-3" });
    const bad = await fetch(`${server.url}/prices/x`, {
      method: "PUT",
      headers: admin,
      body: JSON.stringify({ input_per_million: -1, output_per_million: 0 }),
    });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("content-type")).toContain("application/problem+json");
    const removed = await fetch(
      `${server.url}/prices/${encodeURIComponent("meta-llama/Llama-3")}`,
      {
        method: "DELETE",
        headers: admin,
      },
    );
    expect(removed.status).toBe(204);
    expect((await fetch(`${server.url}/prices`)).status).toBe(401);
  });

  it("answers usage as JSON, and as CSV that parses back to the same figures", async () => {
    const query = "granularity=hour";
    const json = await (
      await fetch(`${server.url}/agents/metered/usage?${query}`, { headers: admin })
    ).json();
    expect(json.points).toHaveLength(24);
    const csv = await fetch(`${server.url}/agents/metered/usage?${query}`, {
      headers: { ...admin, accept: "text/csv" },
    });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toContain("text/csv");
    const [header, ...lines] = (await csv.text()).trimEnd().split("\r\n");
    const columns = (header as string).split(",");
    expect(columns).toEqual([
      "start",
      "messages",
      "runs",
      "input_tokens",
      "output_tokens",
      "cost",
      "unpriced",
      "refused_quota",
      "refused_rate",
    ]);
    const parsed = lines.map((line) => {
      const cells = line.split(",");
      return Object.fromEntries(
        columns.map((column, i) => [
          column,
          column === "start" ? cells[i] : cells[i] === "" ? null : Number(cells[i]),
        ]),
      );
    });
    expect(parsed).toEqual(json.points);
    expect(json.totals).toMatchObject({ messages: 1, input_tokens: 500_000, cost: 0.135 });

    const all = await fetch(`${server.url}/usage?top=1`, {
      headers: { ...admin, accept: "text/csv" },
    });
    expect(all.status).toBe(200);
    expect((await all.text()).split("\r\n")[0]).toBe(header);
    expect((await fetch(`${server.url}/usage?granularity=week`, { headers: admin })).status).toBe(
      400,
    );
    expect((await fetch(`${server.url}/agents/nobody/usage`, { headers: admin })).status).toBe(404);
  });
});
