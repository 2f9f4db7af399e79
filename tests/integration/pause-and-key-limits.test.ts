import { describe, expect, it } from "vitest";
import { parseAgentKey } from "@/server/agent-keys";
import type { Caller } from "@/server/callers";
import { fixedClock } from "@/server/kit/clock";
import { claimDueRuns } from "@/server/runs";
import { callerFor, problemOf } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";

const START = "2026-11-23T12:00:00Z";
const MINUTE = 60_000;
const withKey = (key: string): Caller => {
  const presented = parseAgentKey(key);
  if (!presented) throw new Error(`not an agent key: ${key}`);
  return { kind: "key", key: presented };
};

/**
 * Paused agents (no chats, no runs, nothing deleted) and keys with an expiry and a rate limit of
 * their own: decided in the chat's own opening statement, on both databases.
 */
describe.each(DATABASE_KINDS)("pauses and key limits on %s", (kind) => {
  const clock = fixedClock(START);
  const testDatabase = useTestDatabase(kind, { clock, start: START });
  const admin = () => callerFor(testDatabase().db, { clock });
  const as = (caller: Caller) => callerFor(testDatabase().db, { clock, admin: false, caller });
  const anonymous: Caller = { kind: "anonymous", addressHash: "77aa" };
  const quota = async (aid: string) => (await admin().agents.get({ aid })).quota;

  it("refuses a paused agent's chats with 403 and counts nothing, then takes them when resumed", async () => {
    await admin().agents.upsert({ aid: "napping", rate_limit_rpm: 10 });
    const { agent } = await admin().agents.upsert({ aid: "napping", paused: true });
    expect(agent.paused).toBe(true);
    for (const caller of [anonymous, { kind: "admin" } as Caller]) {
      const refused = await problemOf(as(caller).chat.send({ aid: "napping", q: "hello?" }));
      expect(refused).toMatchObject({ status: 403, code: "agent_paused" });
      expect(refused.detail).toMatch(/paused/);
    }
    expect(await problemOf(as(anonymous).chat.check({ aid: "napping", q: "hi" }))).toMatchObject({
      status: 403,
      code: "agent_paused",
    });
    expect((await quota("napping")).message_count_total).toBe(0);
    // Nobody is offered a model it cannot chat with, the admin included.
    for (const caller of [anonymous, { kind: "admin" } as Caller]) {
      const listed = await as(caller).openaiModels.list({});
      expect(listed.data.map((model) => model.id)).not.toContain("napping");
      expect(await problemOf(as(caller).openaiModels.get({ model: "napping" }))).toMatchObject({
        status: 404,
      });
    }
    await admin().agents.upsert({ aid: "napping", paused: false });
    expect((await as(anonymous).openaiModels.list({})).data.map((m) => m.id)).toContain("napping");
    const reply = await as(anonymous).chat.send({ aid: "napping", q: "hello?" });
    // The rate window was not touched while paused: this is the caller's first chat.
    expect(reply.rate_limit).toMatchObject({ limit: 10, remaining: 9 });
    expect((await quota("napping")).message_count_total).toBe(1);
  });

  it("runs nothing of a paused agent, and resumed goes on from the next slot, not catching up", async () => {
    await admin().agents.upsert({
      aid: "sleeper",
      autonomous_enabled: true,
      autonomous_minutes: 15,
      autonomous_prompt: "Report.",
    });
    expect((await claimDueRuns({ db: testDatabase().db, clock }, 10)).runs).toHaveLength(1);
    await admin().agents.upsert({ aid: "sleeper", paused: true });
    clock.advance(60 * MINUTE); // 13:00: four slots due, none taken
    expect(await claimDueRuns({ db: testDatabase().db, clock }, 10)).toEqual({
      runs: [],
      skipped: 0,
    });
    expect(await problemOf(admin().runs.runNow({ aid: "sleeper" }))).toMatchObject({
      status: 403,
      code: "agent_paused",
    });
    const { agent } = await admin().agents.upsert({ aid: "sleeper", paused: false });
    expect(agent.autonomous_next_run_at).toBe("2026-11-23T13:15:00.000Z");
    clock.advance(15 * MINUTE);
    const { runs } = await claimDueRuns({ db: testDatabase().db, clock }, 10);
    expect(runs.map((run) => run.agent.aid)).toEqual(["sleeper"]);
    expect((await admin().runs.list({ aid: "sleeper" })).runs).toHaveLength(2);
  });

  it("refuses an expired key as it refuses a revoked one, and lists it as expired", async () => {
    await admin().agents.upsert({ aid: "timed", chat_access: "key" });
    const made = await admin().agentKeys.create({
      aid: "timed",
      name: "trial",
      expires_at: "2026-11-23T13:00:00Z",
    });
    expect(made).toMatchObject({ expires_at: "2026-11-23T13:00:00.000Z", expired: false });
    expect((await as(withKey(made.key)).chat.send({ aid: "timed", q: "in time" })).reply).toBe(
      "echo: in time",
    );
    clock.advance(60 * MINUTE);
    const refused = await problemOf(as(withKey(made.key)).chat.send({ aid: "timed", q: "late" }));
    expect(refused).toMatchObject({ status: 401, code: "invalid_key" });
    expect(refused.detail).toMatch(/expired/);
    expect((await admin().agentKeys.list({ aid: "timed" })).keys[0]).toMatchObject({
      expired: true,
    });
    expect(await problemOf(as(withKey(made.key)).openaiModels.list({}))).toMatchObject({
      status: 401,
    });
    // A key that would never work is refused when it is made.
    expect(
      await problemOf(
        admin().agentKeys.create({
          aid: "timed",
          name: "stale",
          expires_at: "2026-11-23T12:00:00Z",
        }),
      ),
    ).toMatchObject({ status: 400, errors: [{ field: "expires_at" }] });
  });

  it("holds a key to its own rate limit, higher or lower than the agent's", async () => {
    await admin().agents.upsert({ aid: "metered", rate_limit_rpm: 3 });
    const slow = (
      await admin().agentKeys.create({ aid: "metered", name: "slow", rate_limit_rpm: 1 })
    ).key;
    const fast = (
      await admin().agentKeys.create({ aid: "metered", name: "fast", rate_limit_rpm: 5 })
    ).key;
    const plain = (await admin().agentKeys.create({ aid: "metered", name: "plain" })).key;
    const sent = async (key: string, n: number) => {
      const statuses: number[] = [];
      for (let i = 0; i < n; i++) {
        try {
          await as(withKey(key)).chat.send({ aid: "metered", q: `q${i}` });
          statuses.push(200);
        } catch (error) {
          statuses.push((await problemOf(Promise.reject(error))).status);
        }
      }
      return statuses;
    };
    expect(await sent(slow, 2)).toEqual([200, 429]);
    expect(await sent(fast, 6)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(await sent(plain, 4)).toEqual([200, 200, 200, 429]);
    const { keys } = await admin().agentKeys.list({ aid: "metered" });
    // Made at the same (fixed) instant: ordered by their random ids, so compared as a set.
    expect(keys.map((key) => [key.name, key.rate_limit_rpm]).sort()).toEqual([
      ["fast", 5],
      ["plain", null],
      ["slow", 1],
    ]);
    const refused = await problemOf(as(withKey(slow)).chat.send({ aid: "metered", q: "again" }));
    expect(refused).toMatchObject({ code: "rate_limited", rate_limit: { limit: 1, remaining: 0 } });
  });

  it("counts exactly a key's own limit of 40 concurrent chats", async () => {
    await admin().agents.upsert({ aid: "burst", rate_limit_rpm: 1000 });
    const key = (await admin().agentKeys.create({ aid: "burst", name: "burst", rate_limit_rpm: 7 }))
      .key;
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        as(withKey(key))
          .chat.send({ aid: "burst", q: `q${i}`, chat_id: `t${i}` })
          .then(
            () => 200,
            async (error: unknown) => (await problemOf(Promise.reject(error))).status,
          ),
      ),
    );
    expect(outcomes.filter((status) => status === 200)).toHaveLength(7);
    expect(outcomes.filter((status) => status === 429)).toHaveLength(33);
    expect((await quota("burst")).message_count_total).toBe(7);
  });
});
