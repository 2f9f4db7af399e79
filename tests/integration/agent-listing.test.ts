import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { agentQuotas } from "@/db/schema";
import type { Agent, ListAgentsQuery } from "@/server/agents";
import { fixedClock } from "@/server/kit/clock";
import { encodeCursor } from "@/server/pagination";
import { callerFor, problemOf } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";
import { seeded } from "../helpers/seeded";

/**
 * The agents listing over all agents: each order both ways, the filters and the totals, paged
 * forwards to the end and back again with the cursors it gives out. Expected orders are worked
 * out here from the agents' own numbers, by the rule the listing documents.
 */

const TODAY = "2026-11-21";
const MONTH = "2026-11-01";

/** Quota use in ten-thousandths, by the documented rule (0 and spent limits count as full). */
function use(agent: Agent): number {
  const q = agent.quota;
  const share = (count: number, limit: number | null) =>
    limit === null ? 0 : count >= limit ? 10_000 : Math.floor((count * 10_000) / limit);
  return Math.max(
    share(q.message_count_total, q.message_limit_total),
    share(q.message_count_monthly, q.message_limit_monthly),
    share(q.message_count_daily, q.message_limit_daily),
    share(q.autonomous_count_total, q.autonomous_limit_total),
    share(q.autonomous_count_monthly, q.autonomous_limit_monthly),
  );
}

const activity = (agent: Agent) =>
  Math.max(
    agent.quota.last_message_at ? Date.parse(agent.quota.last_message_at) : -Infinity,
    agent.quota.last_autonomous_at ? Date.parse(agent.quota.last_autonomous_at) : -Infinity,
  );

describe.each(DATABASE_KINDS)("the agents listing on %s", (kind) => {
  const clock = fixedClock(`${TODAY}T10:00:00Z`);
  const testDatabase = useTestDatabase(kind, { clock, start: `${TODAY}T10:00:00Z` });
  const caller = () => callerFor(testDatabase().db, { clock });

  /** 40 agents with names that repeat, limits and counts of every kind, some never used. */
  async function seed(): Promise<Agent[]> {
    const random = seeded(16);
    const words = ["alpha", "Beta", "gamma", "ALPHA", "delta", "beta"];
    for (let i = 0; i < 40; i++) {
      const aid = `agent-${String(i).padStart(2, "0")}`;
      const pick = <T>(options: T[]) => options[Math.floor(random() * options.length)] as T;
      await caller().agents.upsert({
        aid,
        name: pick(words),
        autonomous_enabled: i % 5 === 0,
        autonomous_prompt: i % 5 === 0 ? "Report." : null,
        quota: {
          message_limit_daily: pick([null, 0, 10, 100]),
          message_limit_monthly: pick([null, 50, 1000]),
          message_limit_total: pick([null, 20, 5000]),
          autonomous_limit_total: pick([null, 3]),
          autonomous_limit_monthly: pick([null, 0, 10]),
        },
      });
      await testDatabase()
        .db.update(agentQuotas)
        .set({
          messageCountDaily: pick([0, 7, 8, 9, 10, 12, 80]),
          // Some daily counts are yesterday's: they count 0 today.
          messageDay: pick([TODAY, TODAY, "2026-11-20"]),
          messageCountMonthly: pick([0, 39, 40, 50]),
          messageMonth: MONTH,
          messageCountTotal: pick([0, 15, 16, 20, 25]),
          autonomousCountTotal: pick([0, 2, 3]),
          autonomousCountMonthly: pick([0, 9]),
          autonomousMonth: MONTH,
          lastMessageAt: pick([null, new Date(`${TODAY}T0${i % 10}:00:00Z`)]),
          lastAutonomousAt: pick([null, null, new Date(`2026-11-${10 + (i % 9)}T12:00:00Z`)]),
        })
        .where(eq(agentQuotas.aid, aid));
    }
    return (await caller().agents.list({ limit: 1000 })).agents;
  }

  /** Every page forwards, then every page back from the last; both must give the same rows. */
  async function walk(query: Omit<ListAgentsQuery, "limit">, limit = 7) {
    const forward: string[][] = [];
    let page = await caller().agents.list({ ...query, limit, include_total: true });
    const total = page.total;
    expect(page.prev_cursor).toBeNull();
    forward.push(page.agents.map((a) => a.aid));
    while (page.next_cursor) {
      page = await caller().agents.list({ ...query, limit, cursor: page.next_cursor });
      expect(page.total).toBeUndefined();
      forward.push(page.agents.map((a) => a.aid));
    }
    const backward: string[][] = [page.agents.map((a) => a.aid)];
    while (page.prev_cursor) {
      page = await caller().agents.list({ ...query, limit, cursor: page.prev_cursor });
      backward.unshift(page.agents.map((a) => a.aid));
    }
    expect(backward).toEqual(forward);
    for (const rows of forward.slice(0, -1)) expect(rows).toHaveLength(limit);
    return { aids: forward.flat(), total };
  }

  const byAid = (a: Agent, b: Agent) => (a.aid < b.aid ? -1 : a.aid > b.aid ? 1 : 0);

  it("orders all agents by aid, name, quota use and last activity, both ways", async () => {
    const all = await seed();
    const name = (a: Agent) => a.name.toLowerCase();
    const expected = {
      "aid asc": [...all].sort(byAid),
      "aid desc": [...all].sort(byAid).reverse(),
      "name asc": [...all].sort((a, b) => name(a).localeCompare(name(b)) || byAid(a, b)),
      "name desc": [...all].sort((a, b) => name(b).localeCompare(name(a)) || byAid(b, a)),
      // Quota use and activity break ties by aid ascending, either way.
      "quota desc": [...all].sort((a, b) => use(b) - use(a) || byAid(a, b)),
      "quota asc": [...all].sort((a, b) => use(a) - use(b) || byAid(a, b)),
      "activity desc": [...all].sort((a, b) => activity(b) - activity(a) || byAid(a, b)),
      "activity asc": [...all].sort((a, b) => activity(a) - activity(b) || byAid(a, b)),
    };
    for (const [label, agents] of Object.entries(expected)) {
      const [sort, order] = label.split(" ") as [ListAgentsQuery["sort"], "asc" | "desc"];
      const { aids, total } = await walk({ sort, order });
      expect(aids, label).toEqual(agents.map((a) => a.aid));
      expect(total).toBe(40);
    }
    // The defaults: aid ascending, quota use and activity descending.
    expect((await walk({ sort: "quota" })).aids).toEqual(expected["quota desc"].map((a) => a.aid));
    expect((await walk({})).aids).toEqual(expected["aid asc"].map((a) => a.aid));
    // The seed has ties to break and agents never used.
    expect(new Set(all.map(use)).size).toBeLessThan(40);
    expect(all.some((a) => activity(a) === -Infinity)).toBe(true);
  });

  it("filters agents near or over a limit, and by autonomous mode, with totals", async () => {
    const all = await seed();
    const near = all.filter((a) => use(a) >= 8000);
    const over = all.filter((a) => use(a) >= 10_000);
    expect(over.length).toBeGreaterThan(0);
    expect(near.length).toBeGreaterThan(over.length);

    const nearWalk = await walk({ quota: "near", sort: "quota" }, 3);
    expect(nearWalk.total).toBe(near.length);
    expect(nearWalk.aids).toEqual(
      [...near].sort((a, b) => use(b) - use(a) || byAid(a, b)).map((a) => a.aid),
    );
    const overWalk = await walk({ quota: "over" }, 3);
    expect(overWalk.total).toBe(over.length);
    expect(overWalk.aids).toEqual([...over].sort(byAid).map((a) => a.aid));

    const on = await walk({ autonomous: "on", sort: "name", order: "desc" }, 3);
    expect([...on.aids].sort()).toEqual(all.filter((a) => a.autonomous_enabled).map((a) => a.aid));
    expect(on.total).toBe(8);
    const offAndOver = await walk({ autonomous: "off", quota: "over", sort: "activity" }, 2);
    expect([...offAndOver.aids].sort()).toEqual(
      over.filter((a) => !a.autonomous_enabled).map((a) => a.aid),
    );
    expect(offAndOver.total).toBe(offAndOver.aids.length);

    const searched = await caller().agents.list({
      q: "agent-1",
      quota: "near",
      include_total: true,
    });
    const expectedSearch = near.filter((a) => a.aid.startsWith("agent-1"));
    expect(searched.total).toBe(expectedSearch.length);
    expect(searched.agents.map((a) => a.aid)).toEqual(expectedSearch.map((a) => a.aid));
  });

  it("counts a limit of 0 and a spent total as full, and yesterday's count as 0", async () => {
    const at = async (aid: string, quota: Record<string, number | null>, counts = {}) => {
      await caller().agents.upsert({
        aid,
        quota: {
          message_limit_daily: null,
          message_limit_monthly: null,
          message_limit_total: null,
          autonomous_limit_total: null,
          autonomous_limit_monthly: null,
          ...quota,
        },
      });
      if (Object.keys(counts).length > 0)
        await testDatabase().db.update(agentQuotas).set(counts).where(eq(agentQuotas.aid, aid));
    };
    await at("zero-limit", { autonomous_limit_monthly: 0 });
    await at("spent-total", { message_limit_total: 5 }, { messageCountTotal: 5 });
    await at("lowered", { message_limit_total: 5 }, { messageCountTotal: 9 });
    await at("eighty", { message_limit_daily: 10 }, { messageCountDaily: 8, messageDay: TODAY });
    await at("seventy-nine", { message_limit_daily: 100 }, { messageCountDaily: 79 });
    await at(
      "yesterday",
      { message_limit_daily: 10 },
      {
        messageCountDaily: 10,
        messageDay: "2026-11-20",
      },
    );
    await at("unlimited", {}, { messageCountTotal: 1_000_000 });
    const aids = async (query: Partial<ListAgentsQuery>) =>
      (await caller().agents.list(query)).agents.map((a) => a.aid);
    expect(await aids({ quota: "over" })).toEqual(["lowered", "spent-total", "zero-limit"]);
    expect(await aids({ quota: "near" })).toEqual([
      "eighty",
      "lowered",
      "spent-total",
      "zero-limit",
    ]);
    expect(await aids({ sort: "quota" })).toEqual([
      "lowered",
      "spent-total",
      "zero-limit",
      "eighty",
      "seventy-nine",
      "unlimited",
      "yesterday",
    ]);
    // The overview counts by the same rule.
    expect(await caller().dashboard.overview()).toMatchObject({
      agents_near_limit: 4,
      agents_over_limit: 3,
    });
    // Midnight UTC: today's counts become yesterday's.
    clock.set("2026-11-22T00:00:00Z");
    expect(await aids({ quota: "near" })).toEqual(["lowered", "spent-total", "zero-limit"]);
  });

  it("refuses a cursor of another order, and still reads cursors of plain aid order", async () => {
    await seed();
    const page = await caller().agents.list({ sort: "name", limit: 5 });
    expect(
      await problemOf(caller().agents.list({ sort: "quota", cursor: page.next_cursor ?? "" })),
    ).toMatchObject({ status: 400, code: "invalid_cursor" });
    expect(
      await problemOf(
        caller().agents.list({ sort: "name", order: "desc", cursor: page.next_cursor ?? "" }),
      ),
    ).toMatchObject({ status: 400, code: "invalid_cursor" });
    // The form cursors had before sorting existed.
    const legacy = await caller().agents.list({
      limit: 3,
      cursor: encodeCursor({ a: "agent-09" }),
    });
    expect(legacy.agents.map((a) => a.aid)).toEqual(["agent-10", "agent-11", "agent-12"]);
    // Forged cursors of the right shape: refused as cursors, never a database error.
    for (const [sort, v] of [
      ["quota", "abc"],
      ["quota", "99999999999"],
      ["quota", "1; DROP TABLE agents"],
      ["activity", "2026-13-45"],
      ["activity", "-infinity"],
      ["activity", "99999999999999999999"],
    ] as const) {
      const forged = encodeCursor({ a: "agent-01", s: sort, o: "desc", v });
      expect(await problemOf(caller().agents.list({ sort, cursor: forged })), v).toMatchObject({
        status: 400,
        code: "invalid_cursor",
      });
    }
    const nul = encodeCursor({ a: "x\u0000", s: "name", o: "asc", v: "a" });
    expect(await problemOf(caller().agents.list({ sort: "name", cursor: nul }))).toMatchObject({
      status: 400,
      code: "invalid_cursor",
    });
    const odd = encodeCursor({ a: "x'\"", s: "name", o: "asc", v: "\u00e9'; --" });
    expect((await caller().agents.list({ sort: "name", cursor: odd })).agents).toBeDefined();
    expect(await problemOf(caller().agents.list({ sort: "bogus" as never }))).toMatchObject({
      status: 400,
      code: "validation_failed",
    });
  });
});
