import { describe, expect, it } from "vitest";
import { afterFailure, giveUpTime, retryDelayMs } from "@/server/webhooks";

const T0 = Date.parse("2026-11-24T09:00:00Z");
const at = (ms: number) => new Date(T0 + ms);

describe("webhook retries", () => {
  it("waits the base, then twice as long each time, stretched by at most 20%", () => {
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(n, 5000, () => 0))).toEqual([
      5000, 10_000, 20_000, 40_000, 80_000,
    ]);
    // The jitter only ever lengthens a delay, and by less than a fifth.
    expect(retryDelayMs(3, 5000, () => 0.5)).toBe(22_000);
    expect(retryDelayMs(3, 5000, () => 0.999_999)).toBeLessThan(24_000);
    // Far past any window, the number stays finite.
    expect(Number.isFinite(retryDelayMs(10_000, 5000, () => 1))).toBe(true);
  });

  it("spreads deliveries that failed together", () => {
    const delays = new Set(Array.from({ length: 50 }, () => retryDelayMs(2, 5000, Math.random)));
    expect(delays.size).toBeGreaterThan(40);
    for (const delay of delays) expect(delay >= 10_000 && delay < 12_000).toBe(true);
  });

  it("retries through the window, the last attempt at its end, then gives up", () => {
    const windowMs = 24 * 3_600_000;
    const giveUpAt = giveUpTime({ createdAt: at(0), giveUpAt: null }, windowMs);
    expect(giveUpAt).toEqual(at(windowMs));
    // Attempts as a sender without jitter would make them, each failing.
    const attempts = [0];
    for (;;) {
      const next = afterFailure(at(attempts.at(-1) as number), attempts.length, giveUpAt, {
        baseMs: 5000,
        random: () => 0,
      });
      if ("giveUp" in next) break;
      attempts.push(next.retryAt.getTime() - T0);
    }
    // 0, 5 s, 15 s, 35 s, … doubling, until the window's end: 5 s × (2^14 − 1) = 22.75 h is the
    // last doubled one, and the one after it would be past 24 h, so it is at 24 h exactly.
    expect(attempts.slice(0, 5)).toEqual([0, 5000, 15_000, 35_000, 75_000]);
    expect(attempts.at(-2)).toBe(5000 * (2 ** 14 - 1));
    expect(attempts.at(-1)).toBe(windowMs);
    expect(attempts).toHaveLength(16);
  });

  it("gives a retry asked for its own end, and gives up once it has passed", () => {
    const now = at(1000);
    expect(giveUpTime({ createdAt: at(-100 * 3_600_000), giveUpAt: now }, 3_600_000)).toEqual(now);
    expect(afterFailure(now, 1, now, { baseMs: 5000 })).toEqual({ giveUp: true });
    expect(afterFailure(now, 1, at(0), { baseMs: 5000 })).toEqual({ giveUp: true });
  });
});
