import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../helpers/database-kinds";
import type { RunningServer } from "../helpers/server";
import { TEST_ADMIN_KEY } from "../helpers/server";
import { startServerOn } from "../helpers/server-on";
import { until } from "../helpers/webhook-receiver";

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };
const HOUR = 3_600_000;

type Entry = {
  caller: string;
  aid: string;
  status: number;
  request_id: string | null;
  stands_for: number;
};

/**
 * The review's flood over HTTP: chats to agents that do not exist, without credentials, from
 * one address at 20 connections. Its entries are bounded; the real agent's chats from the same
 * address are all logged; another address is counted apart. On both databases (on PostgreSQL
 * two web workers write, and count in one table).
 */
describe.each(DATABASE_KINDS)("a flood of chats to missing agents on %s", (kind) => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServerOn(kind, { TRUST_PROXY: "1" });
    const made = await fetch(`${server.url}/agents`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ aid: "real", rate_limit_rpm: null }),
    });
    expect(made.status).toBe(201);
  });
  afterAll(() => server?.stop());

  /** Sends `paths` from the address `from`, `connections` at a time. */
  async function send(from: string, paths: string[], connections = 20) {
    const statuses: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (next < paths.length) {
          const index = next++;
          const response = await fetch(`${server.url}${paths[index]}`, {
            headers: { "x-forwarded-for": from, "x-request-id": `flood-${from}-${index}` },
          });
          await response.arrayBuffer();
          statuses.push(response.status);
        }
      }),
    );
    return statuses;
  }

  const listed = async (query: string): Promise<Entry[]> =>
    (await (await fetch(`${server.url}/requests${query}`, { headers: admin })).json()).requests;

  it("logs a client's first 100 an hour one by one, then one entry for every 10", async () => {
    // The bound is per client and hour: a flood that began just before the hour turns would
    // count in two hours (and log up to twice as much), so it waits for the next one.
    const left = HOUR - (Date.now() % HOUR);
    if (left < 90_000) await new Promise((resolve) => setTimeout(resolve, left + 1000));

    const missing = Array.from({ length: 1000 }, (_, i) => `/nobody-${i}/chat?q=hi`);
    const real = Array.from({ length: 50 }, () => "/real/chat?q=hi");
    // The real agent's chats go out amid the flood, from the same address.
    const [flood, replies] = await Promise.all([
      send("198.51.100.7", missing),
      send("198.51.100.7", real, 2),
    ]);
    expect(flood.filter((status) => status === 404)).toHaveLength(1000);
    expect(replies.filter((status) => status === 200)).toHaveLength(50);
    expect((await send("198.51.100.8", missing.slice(0, 150))).every((s) => s === 404)).toBe(true);

    // Entries are written within a second of their chat (by each worker on PostgreSQL).
    const refusals = async () => listed("?status=404&limit=500");
    expect(await until(async () => (await refusals()).length >= 190 + 105, 30_000)).toBe(true);
    // A moment more, to see that nothing else comes.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const byCaller = new Map<string, Entry[]>();
    for (const entry of await refusals())
      byCaller.set(entry.caller, [...(byCaller.get(entry.caller) ?? []), entry]);
    const counted = [...byCaller.values()]
      .map((entries) => ({
        entries: entries.length,
        stands_for: entries.reduce((sum, entry) => sum + entry.stands_for, 0),
        exact: entries.filter((entry) => entry.stands_for === 1).length,
      }))
      .sort((a, b) => b.entries - a.entries);
    expect(counted).toEqual([
      { entries: 100 + 90, stands_for: 1000, exact: 100 },
      { entries: 100 + 5, stands_for: 150, exact: 100 },
    ]);

    // Every chat with the real agent is there, one entry each.
    expect(await until(async () => (await listed("?aid=real&limit=500")).length >= 50)).toBe(true);
    const realEntries = await listed("?aid=real&limit=500");
    expect(realEntries).toHaveLength(50);
    expect(realEntries.every((entry) => entry.status === 200 && entry.stands_for === 1)).toBe(true);
    expect(new Set(realEntries.map((entry) => entry.request_id)).size).toBe(50);

    // The breakdown counts what the sampled entries stand for.
    const breakdown = await (
      await fetch(`${server.url}/requests/breakdown?by=model`, { headers: admin })
    ).json();
    const refused = breakdown.groups.find(
      (group: { group: string | null }) => group.group === null,
    );
    expect(refused).toMatchObject({ requests: 1150, delivered: 0 });
  });
});
