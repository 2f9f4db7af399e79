import { describe, expect, it } from "vitest";
import type { AgentQuotaRow } from "@/db/schema";
import { findExceeded, newQuotaRow, presentQuota } from "@/server/quota";

const limits = {
  messageLimitTotal: null,
  messageLimitMonthly: null,
  messageLimitDaily: null,
  autonomousLimitTotal: null,
  autonomousLimitMonthly: null,
  tokenLimitTotal: null,
  tokenLimitMonthly: null,
  tokenLimitDaily: null,
};

/** A stored quota row as of `day`, with the given counts and limits. */
function row(day: string, overrides: Partial<AgentQuotaRow> = {}): AgentQuotaRow {
  const base = newQuotaRow("bot", limits, new Date(`${day}T12:00:00Z`));
  return {
    messageCountTotal: 0,
    messageCountMonthly: 0,
    messageCountDaily: 0,
    autonomousCountTotal: 0,
    autonomousCountMonthly: 0,
    lastMessageAt: null,
    lastAutonomousAt: null,
    inputTokensTotal: 0,
    outputTokensTotal: 0,
    inputTokensMonthly: 0,
    outputTokensMonthly: 0,
    tokenMonth: null,
    inputTokensDaily: 0,
    outputTokensDaily: 0,
    tokenDay: null,
    costTotal: 0,
    costMonthly: 0,
    costDaily: 0,
    tokenHolds: 0,
    ...base,
    ...limits,
    ...overrides,
  } as AgentQuotaRow;
}

describe("effective quota counts", () => {
  const stored = row("2028-02-28", {
    messageCountTotal: 40,
    messageCountMonthly: 30,
    messageCountDaily: 7,
    autonomousCountTotal: 9,
    autonomousCountMonthly: 4,
  });

  it("shows the stored counts within their period", () => {
    const q = presentQuota(stored, new Date("2028-02-28T23:59:59Z"));
    expect(q).toMatchObject({
      message_count_daily: 7,
      message_count_monthly: 30,
      message_count_total: 40,
    });
    expect(q.daily_resets_at).toBe("2028-02-29T00:00:00.000Z");
    expect(q.monthly_resets_at).toBe("2028-03-01T00:00:00.000Z");
  });

  it("shows 0 for a day that has rolled over (the leap day), but keeps the month", () => {
    const q = presentQuota(stored, new Date("2028-02-29T00:00:00Z"));
    expect(q).toMatchObject({
      message_count_daily: 0,
      message_count_monthly: 30,
      message_count_total: 40,
    });
    expect(q.autonomous_count_monthly).toBe(4);
  });

  it("shows 0 for daily and monthly counters once the month has rolled over; totals stay", () => {
    const q = presentQuota(stored, new Date("2028-03-01T00:00:00Z"));
    expect(q).toMatchObject({
      message_count_daily: 0,
      message_count_monthly: 0,
      message_count_total: 40,
      autonomous_count_monthly: 0,
      autonomous_count_total: 9,
    });
  });
});

describe("which limit is exceeded", () => {
  const now = new Date("2026-11-21T18:00:00Z");

  it("finds nothing while every limit has room, and nothing for null (unlimited) limits", () => {
    expect(
      findExceeded(row("2026-11-21", { messageCountDaily: 1_000_000 }), "message", now),
    ).toBeUndefined();
    expect(
      findExceeded(
        row("2026-11-21", { messageLimitDaily: 5, messageCountDaily: 4 }),
        "message",
        now,
      ),
    ).toBeUndefined();
  });

  it("names the daily limit and the seconds until 00:00 UTC", () => {
    const hit = findExceeded(
      row("2026-11-21", { messageLimitDaily: 5, messageCountDaily: 5 }),
      "message",
      now,
    );
    expect(hit).toMatchObject({
      period: "daily",
      limitField: "message_limit_daily",
      limit: 5,
      retryAfterS: 6 * 3600,
    });
    expect(hit?.detail).toBe(
      "Daily message limit reached for agent 'bot': 5 messages allowed, it resets at 2026-11-22T00:00:00Z.",
    );
  });

  it("does not count a daily limit as hit when the stored day is yesterday", () => {
    const stale = row("2026-11-20", { messageLimitDaily: 5, messageCountDaily: 5 });
    expect(findExceeded(stale, "message", now)).toBeUndefined();
  });

  it("prefers the monthly limit when daily and monthly are both hit: it frees later", () => {
    const hit = findExceeded(
      row("2026-11-21", {
        messageLimitDaily: 5,
        messageCountDaily: 5,
        messageLimitMonthly: 9,
        messageCountMonthly: 9,
      }),
      "message",
      now,
    );
    expect(hit).toMatchObject({
      period: "monthly",
      retryAfterS: secondsTo("2026-12-01T00:00:00Z"),
    });
  });

  it("gives no retry time for an exhausted total: it never resets by itself", () => {
    const hit = findExceeded(
      row("2026-11-21", {
        messageLimitTotal: 3,
        messageCountTotal: 3,
        messageLimitDaily: 1,
        messageCountDaily: 1,
      }),
      "message",
      now,
    );
    expect(hit).toMatchObject({ period: "total", retryAfterS: null, resetsAt: null });
    expect(hit?.detail).toContain("does not reset by itself");
  });

  it("treats a limit of 0 as closed for good, even for a daily limit", () => {
    const hit = findExceeded(row("2026-11-21", { messageLimitDaily: 0 }), "message", now);
    expect(hit).toMatchObject({ period: "daily", limit: 0, retryAfterS: null });
  });

  it("checks the autonomous counters apart from the message ones", () => {
    const r = row("2026-11-21", {
      messageLimitDaily: 0,
      autonomousLimitMonthly: 3,
      autonomousCountMonthly: 2,
    });
    expect(findExceeded(r, "autonomous", now)).toBeUndefined();
    expect(findExceeded({ ...r, autonomousCountMonthly: 3 }, "autonomous", now)).toMatchObject({
      kind: "autonomous",
      limitField: "autonomous_limit_monthly",
    });
  });

  function secondsTo(iso: string) {
    return Math.ceil((new Date(iso).getTime() - now.getTime()) / 1000);
  }
});
