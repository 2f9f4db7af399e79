import { describe, expect, it } from "vitest";
import { nextRunAfterChange, nextSlotAfter } from "@/server/schedules";

const at = (iso: string) => new Date(iso);

describe("the next slot after a run", () => {
  it("is one interval after the slot that ran, when that is still ahead", () => {
    expect(nextSlotAfter(at("2026-11-21T10:00:00Z"), 5, at("2026-11-21T10:00:30Z"))).toEqual(
      at("2026-11-21T10:05:00Z"),
    );
  });

  it("skips slots missed while no scheduler ran, staying on the grid", () => {
    // Due 10:00, claimed at 10:23: the 10:05…10:20 slots are not replayed; next is 10:25.
    expect(nextSlotAfter(at("2026-11-21T10:00:00Z"), 5, at("2026-11-21T10:23:00Z"))).toEqual(
      at("2026-11-21T10:25:00Z"),
    );
    // Exactly on a slot boundary: that slot is now, so the next one is after it.
    expect(nextSlotAfter(at("2026-11-21T10:00:00Z"), 5, at("2026-11-21T10:05:00Z"))).toEqual(
      at("2026-11-21T10:10:00Z"),
    );
  });

  it("handles the longest interval, a year of minutes", () => {
    expect(nextSlotAfter(at("2026-01-01T00:00:00Z"), 525_600, at("2026-01-01T00:00:01Z"))).toEqual(
      at("2027-01-01T00:00:00Z"),
    );
  });
});

describe("the next run after a configuration change", () => {
  const now = at("2026-11-21T10:10:00Z");
  const running = {
    autonomousEnabled: true,
    autonomousMinutes: 60,
    autonomousNextRunAt: at("2026-11-21T11:00:00Z"),
  };

  it("is now for a new agent or one just switched on", () => {
    expect(
      nextRunAfterChange(undefined, { autonomousEnabled: true, autonomousMinutes: 5 }, now),
    ).toEqual(now);
    expect(
      nextRunAfterChange(
        { ...running, autonomousEnabled: false, autonomousNextRunAt: null },
        { autonomousEnabled: true, autonomousMinutes: 60 },
        now,
      ),
    ).toEqual(now);
  });

  it("is never while autonomous mode is off", () => {
    expect(
      nextRunAfterChange(running, { autonomousEnabled: false, autonomousMinutes: 60 }, now),
    ).toBeNull();
  });

  it("stays put when the interval is unchanged (the prompt may change freely)", () => {
    expect(
      nextRunAfterChange(running, { autonomousEnabled: true, autonomousMinutes: 60 }, now),
    ).toEqual(at("2026-11-21T11:00:00Z"));
  });

  it("moves to the last slot plus the new interval when the interval changes", () => {
    // Last slot 10:00; every 5 minutes now: 10:05, already due at the next tick.
    expect(
      nextRunAfterChange(running, { autonomousEnabled: true, autonomousMinutes: 5 }, now),
    ).toEqual(at("2026-11-21T10:05:00Z"));
    expect(
      nextRunAfterChange(running, { autonomousEnabled: true, autonomousMinutes: 120 }, now),
    ).toEqual(at("2026-11-21T12:00:00Z"));
  });
});
