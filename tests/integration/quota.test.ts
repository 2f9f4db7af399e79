import { describe, expect, it } from "vitest";
import { fixedClock } from "@/server/clock";
import { type ConsumeResult, consumeQuota, refundQuota } from "@/server/quota";
import { callerFor } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";

const limits = (quota: Record<string, number | null>) => ({ quota });

function expectOk(result: ConsumeResult) {
  if (!result.ok) throw new Error(`expected a reservation, got ${JSON.stringify(result)}`);
  return result.reservation;
}

describe.each(DATABASE_KINDS)("quota consume and refund on %s", (kind) => {
  const clock = fixedClock("2026-11-21T18:00:00Z");
  const testDatabase = useTestDatabase(kind, { clock, start: "2026-11-21T18:00:00Z" });
  const consume = (aid: string, what: "message" | "autonomous" = "message") =>
    consumeQuota({ db: testDatabase().db, clock }, aid, what);
  const agent = (aid: string, quota: Record<string, number | null>) =>
    callerFor(testDatabase().db, { clock }).agents.upsert({ aid, ...limits(quota) });
  const quotaOf = async (aid: string) =>
    (await callerFor(testDatabase().db, { clock }).agents.get({ aid })).quota;

  it("stops at the daily limit and frees it at 00:00 UTC", async () => {
    await agent("daily", { message_limit_daily: 3 });
    for (let i = 0; i < 3; i++) expectOk(await consume("daily"));
    const refused = await consume("daily");
    expect(refused).toMatchObject({
      ok: false,
      exceeded: { period: "daily", limit: 3, retryAfterS: 6 * 3600 },
    });

    clock.set("2026-11-21T23:59:59.500Z");
    expect((await consume("daily")).ok).toBe(false);
    clock.set("2026-11-22T00:00:00Z");
    expectOk(await consume("daily"));
    expect(await quotaOf("daily")).toMatchObject({
      message_count_daily: 1,
      message_count_monthly: 4,
      message_count_total: 4,
    });
  });

  it("stops at the monthly limit and frees it on the 1st, across a leap day", async () => {
    clock.set("2028-02-28T12:00:00Z");
    await agent("monthly", { message_limit_monthly: 2, message_limit_daily: null });
    expectOk(await consume("monthly"));
    clock.set("2028-02-29T12:00:00Z");
    expectOk(await consume("monthly"));
    expect(await consume("monthly")).toMatchObject({
      ok: false,
      exceeded: { period: "monthly", retryAfterS: 12 * 3600 },
    });
    clock.set("2028-03-01T00:00:00Z");
    expectOk(await consume("monthly"));
  });

  it("never frees an exhausted total, and a limit of 0 refuses at once", async () => {
    await agent("total", { message_limit_total: 1 });
    expectOk(await consume("total"));
    clock.set("2027-06-01T00:00:00Z");
    expect(await consume("total")).toMatchObject({
      ok: false,
      exceeded: { period: "total", retryAfterS: null },
    });

    await agent("closed", { message_limit_daily: 0 });
    expect(await consume("closed")).toMatchObject({
      ok: false,
      exceeded: { limit: 0, retryAfterS: null },
    });
  });

  it("does not limit null (unlimited) counters", async () => {
    await agent("free", {
      message_limit_total: null,
      message_limit_monthly: null,
      message_limit_daily: null,
    });
    for (let i = 0; i < 50; i++) expectOk(await consume("free"));
    expect((await quotaOf("free")).message_count_total).toBe(50);
  });

  it("gives a refunded use back, so it can be used again", async () => {
    await agent("refund", { message_limit_daily: 1 });
    const reservation = expectOk(await consume("refund"));
    expect((await consume("refund")).ok).toBe(false);
    await refundQuota({ db: testDatabase().db }, reservation);
    expect(await quotaOf("refund")).toMatchObject({
      message_count_daily: 0,
      message_count_total: 0,
    });
    expectOk(await consume("refund"));
  });

  it("refunds into the period the use was taken from, not the new one", async () => {
    await agent("late", { message_limit_daily: 5 });
    const yesterday = expectOk(await consume("late"));
    clock.set("2026-11-22T00:00:01Z");
    expectOk(await consume("late"));
    await refundQuota({ db: testDatabase().db }, yesterday);
    // Today's use stays counted; yesterday's is gone from the total.
    expect(await quotaOf("late")).toMatchObject({ message_count_daily: 1, message_count_total: 1 });
  });

  it("counts autonomous runs apart from messages", async () => {
    await agent("runner", { autonomous_limit_monthly: 2, message_limit_daily: 0 });
    expectOk(await consume("runner", "autonomous"));
    expectOk(await consume("runner", "autonomous"));
    expect(await consume("runner", "autonomous")).toMatchObject({
      ok: false,
      exceeded: { kind: "autonomous", limitField: "autonomous_limit_monthly" },
    });
    expect(await quotaOf("runner")).toMatchObject({
      autonomous_count_total: 2,
      message_count_total: 0,
    });
  });

  it("says when the agent does not exist", async () => {
    expect(await consume("ghost")).toMatchObject({ ok: false, notFound: true });
  });
});
