import { describe, expect, it } from "vitest";
import { type Opening, openChat } from "@/server/chat";
import { fixedClock } from "@/server/kit/clock";
import { releaseMessage, whyRefused } from "@/server/quota";
import { callerFor } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";

const limits = (quota: Record<string, number | null>) => ({ quota });

/** The reservation of an opened chat, whose use a test may release. */
function expectOk(opening: Opening) {
  if (opening.outcome !== "opened")
    throw new Error(`expected a reservation, got ${JSON.stringify(opening)}`);
  return opening.reservationId;
}

/**
 * A use reserved, released and refused on the paths chat and runs take: a message by the chat's
 * opening statement (and released as a chat whose reply was not delivered), an autonomous run
 * by the run's claim (run now).
 */
describe.each(DATABASE_KINDS)("quota reserve and release on %s", (kind) => {
  const clock = fixedClock("2026-11-21T18:00:00Z");
  const testDatabase = useTestDatabase(kind, { clock, start: "2026-11-21T18:00:00Z" });
  const reserve = (aid: string) =>
    openChat(
      { db: testDatabase().db, clock },
      { aid, caller: { kind: "admin" }, chatId: "default", inputChars: 1 },
      { historyMessages: 20, historyMaxChars: 10_000 },
    );
  const release = ({ aid, id }: { aid: string; id: number }) =>
    releaseMessage(testDatabase().db, { aid, reservationId: id });
  const admin = () => callerFor(testDatabase().db, { clock });
  const agent = (aid: string, quota: Record<string, number | null>) =>
    admin().agents.upsert({ aid, autonomous_prompt: "Report.", ...limits(quota) });
  const quotaOf = async (aid: string) => (await admin().agents.get({ aid })).quota;

  it("stops at the daily limit and frees it at 00:00 UTC", async () => {
    await agent("daily", { message_limit_daily: 3 });
    for (let i = 0; i < 3; i++) expectOk(await reserve("daily"));
    const refused = await reserve("daily");
    expect(refused).toMatchObject({
      outcome: "quota_exceeded",
      exceeded: { period: "daily", limit: 3, retryAfterS: 6 * 3600 },
    });

    clock.set("2026-11-21T23:59:59.500Z");
    expect((await reserve("daily")).outcome).toBe("quota_exceeded");
    clock.set("2026-11-22T00:00:00Z");
    expectOk(await reserve("daily"));
    expect(await quotaOf("daily")).toMatchObject({
      message_count_daily: 1,
      message_count_monthly: 4,
      message_count_total: 4,
    });
  });

  it("stops at the monthly limit and frees it on the 1st, across a leap day", async () => {
    clock.set("2028-02-28T12:00:00Z");
    await agent("monthly", { message_limit_monthly: 2, message_limit_daily: null });
    expectOk(await reserve("monthly"));
    clock.set("2028-02-29T12:00:00Z");
    expectOk(await reserve("monthly"));
    expect(await reserve("monthly")).toMatchObject({
      outcome: "quota_exceeded",
      exceeded: { period: "monthly", retryAfterS: 12 * 3600 },
    });
    clock.set("2028-03-01T00:00:00Z");
    expectOk(await reserve("monthly"));
  });

  it("never frees an exhausted total, and a limit of 0 refuses at once", async () => {
    await agent("total", { message_limit_total: 1 });
    expectOk(await reserve("total"));
    clock.set("2027-06-01T00:00:00Z");
    expect(await reserve("total")).toMatchObject({
      outcome: "quota_exceeded",
      exceeded: { period: "total", retryAfterS: null },
    });

    await agent("closed", { message_limit_daily: 0 });
    expect(await reserve("closed")).toMatchObject({
      outcome: "quota_exceeded",
      exceeded: { limit: 0, retryAfterS: null },
    });
  });

  it("does not limit null (unlimited) counters", async () => {
    await agent("free", {
      message_limit_total: null,
      message_limit_monthly: null,
      message_limit_daily: null,
    });
    for (let i = 0; i < 50; i++) expectOk(await reserve("free"));
    expect((await quotaOf("free")).message_count_total).toBe(50);
  });

  it("gives a released use back, so it can be used again", async () => {
    await agent("refund", { message_limit_daily: 1 });
    const reservation = expectOk(await reserve("refund"));
    expect((await reserve("refund")).outcome).toBe("quota_exceeded");
    await release({ aid: "refund", id: reservation });
    expect(await quotaOf("refund")).toMatchObject({
      message_count_daily: 0,
      message_count_total: 0,
    });
    expectOk(await reserve("refund"));
  });

  it("releases a use at most once", async () => {
    await agent("twice", { message_limit_daily: 5 });
    const first = expectOk(await reserve("twice"));
    expectOk(await reserve("twice"));
    await release({ aid: "twice", id: first });
    await release({ aid: "twice", id: first });
    expect(await quotaOf("twice")).toMatchObject({
      message_count_daily: 1,
      message_count_total: 1,
    });
  });

  it("refunds into the period the use was taken from, not the new one", async () => {
    await agent("late", { message_limit_daily: 5 });
    const yesterday = expectOk(await reserve("late"));
    clock.set("2026-11-22T00:00:01Z");
    expectOk(await reserve("late"));
    await release({ aid: "late", id: yesterday });
    // Today's use stays counted; yesterday's is gone from the total.
    expect(await quotaOf("late")).toMatchObject({ message_count_daily: 1, message_count_total: 1 });
  });

  it("counts autonomous runs apart from messages", async () => {
    await agent("runner", { autonomous_limit_monthly: 2, message_limit_daily: 0 });
    const runNow = () => admin().runs.runNow({ aid: "runner" });
    expect((await runNow()).outcome).toBe("succeeded");
    expect((await runNow()).outcome).toBe("succeeded");
    const skipped = await runNow();
    expect(skipped).toMatchObject({ outcome: "skipped" });
    const why = (await whyRefused(testDatabase().db, ["runner"], "autonomous", clock.now())).get(
      "runner",
    );
    expect(why).toMatchObject({
      exceeded: { kind: "autonomous", limitField: "autonomous_limit_monthly" },
    });
    expect(skipped.error).toBe(why?.exceeded?.detail);
    expect(await quotaOf("runner")).toMatchObject({
      autonomous_count_total: 2,
      message_count_total: 0,
    });
  });

  it("says when the agent does not exist", async () => {
    expect(await reserve("ghost")).toEqual({ outcome: "not_found" });
  });
});
