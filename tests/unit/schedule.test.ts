import { describe, expect, it } from "vitest";
import {
  autonomousCronSchema,
  autonomousTimezoneSchema,
  describeCron,
  nextOccurrence,
  nextRunAfterChange,
  nextSlot,
  nextSlotAfter,
} from "@/server/schedules";

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
  const interval = { autonomousCron: null, autonomousTimezone: "UTC", paused: false };
  const running = {
    autonomousEnabled: true,
    autonomousMinutes: 60,
    autonomousNextRunAt: at("2026-11-21T11:00:00Z"),
    ...interval,
  };

  it("is now for a new agent or one just switched on", () => {
    expect(
      nextRunAfterChange(
        undefined,
        { autonomousEnabled: true, autonomousMinutes: 5, ...interval },
        now,
      ),
    ).toEqual(now);
    expect(
      nextRunAfterChange(
        { ...running, autonomousEnabled: false, autonomousNextRunAt: null },
        { autonomousEnabled: true, autonomousMinutes: 60, ...interval },
        now,
      ),
    ).toEqual(now);
  });

  it("is never while autonomous mode is off", () => {
    expect(
      nextRunAfterChange(
        running,
        { autonomousEnabled: false, autonomousMinutes: 60, ...interval },
        now,
      ),
    ).toBeNull();
  });

  it("stays put when the interval is unchanged (the prompt may change freely)", () => {
    expect(
      nextRunAfterChange(
        running,
        { autonomousEnabled: true, autonomousMinutes: 60, ...interval },
        now,
      ),
    ).toEqual(at("2026-11-21T11:00:00Z"));
  });

  it("goes on from the next slot after now when resumed, without running what it missed", () => {
    // Paused with 11:00 due; resumed at 13:20: the next run is 14:00, not at once.
    const paused = { ...running, paused: true };
    expect(
      nextRunAfterChange(paused, { ...running, paused: false }, at("2026-11-21T13:20:00Z")),
    ).toEqual(at("2026-11-21T14:00:00Z"));
    // Resumed before its slot: the slot stands.
    expect(nextRunAfterChange(paused, { ...running, paused: false }, now)).toEqual(
      at("2026-11-21T11:00:00Z"),
    );
  });

  it("moves to the last slot plus the new interval when the interval changes", () => {
    // Last slot 10:00; every 5 minutes now: 10:05, already due at the next tick.
    expect(
      nextRunAfterChange(
        running,
        { autonomousEnabled: true, autonomousMinutes: 5, ...interval },
        now,
      ),
    ).toEqual(at("2026-11-21T10:05:00Z"));
    expect(
      nextRunAfterChange(
        running,
        { autonomousEnabled: true, autonomousMinutes: 120, ...interval },
        now,
      ),
    ).toEqual(at("2026-11-21T12:00:00Z"));
  });
});

describe("cron schedules in a time zone (croner)", () => {
  const berlin = "Europe/Berlin";
  /** Each of the next `count` occurrences after `from`, as UTC instants. */
  const occurrences = (cron: string, zone: string, from: string, count: number) => {
    const found: string[] = [];
    let after = at(from);
    for (let i = 0; i < count; i++) {
      const next = nextOccurrence(cron, zone, after);
      if (!next) break;
      found.push(next.toISOString());
      after = next;
    }
    return found;
  };

  it("runs weekdays at 09:00 Berlin time, in winter (UTC+1) and in summer (UTC+2)", () => {
    expect(occurrences("0 9 * * 1-5", berlin, "2026-11-27T12:00:00Z", 2)).toEqual([
      "2026-11-30T08:00:00.000Z",
      "2026-12-01T08:00:00.000Z",
    ]);
    expect(occurrences("0 9 * * 1-5", berlin, "2026-06-05T12:00:00Z", 1)).toEqual([
      "2026-06-08T07:00:00.000Z",
    ]);
    // The same expression in New York is another instant: that Friday's 09:00 is still ahead.
    expect(occurrences("0 9 * * 1-5", "America/New_York", "2026-11-27T12:00:00Z", 1)).toEqual([
      "2026-11-27T14:00:00.000Z",
    ]);
  });

  it("on the spring-forward day, runs a time in the gap at the first valid time after it", () => {
    // Berlin, 2026-03-29: 02:00 CET jumps to 03:00 CEST; 02:30 does not exist that day.
    expect(occurrences("30 2 * * *", berlin, "2026-03-28T00:00:00Z", 3)).toEqual([
      "2026-03-28T01:30:00.000Z", // 02:30 CET
      "2026-03-29T01:00:00.000Z", // 03:00 CEST, the first time after the gap
      "2026-03-30T00:30:00.000Z", // 02:30 CEST
    ]);
    // An interval expression skips the hour that does not exist.
    expect(occurrences("30 * * * *", berlin, "2026-03-29T00:00:00Z", 3)).toEqual([
      "2026-03-29T00:30:00.000Z", // 01:30 CET
      "2026-03-29T01:30:00.000Z", // 03:30 CEST
      "2026-03-29T02:30:00.000Z", // 04:30 CEST
    ]);
  });

  it("on the fall-back day, runs a repeated fixed time once, an interval both times", () => {
    // Berlin, 2026-10-25: 03:00 CEST goes back to 02:00 CET; 02:30 happens twice.
    expect(occurrences("30 2 * * *", berlin, "2026-10-24T12:00:00Z", 2)).toEqual([
      "2026-10-25T00:30:00.000Z", // 02:30 CEST, the first of the two
      "2026-10-26T01:30:00.000Z", // 02:30 CET, the next day
    ]);
    expect(occurrences("30 * * * *", berlin, "2026-10-24T23:00:00Z", 4)).toEqual([
      "2026-10-24T23:30:00.000Z", // 01:30 CEST
      "2026-10-25T00:30:00.000Z", // 02:30 CEST
      "2026-10-25T01:30:00.000Z", // 02:30 CET
      "2026-10-25T02:30:00.000Z", // 03:30 CET
    ]);
  });

  it("after downtime gives one catch-up run, then the next occurrence after now", () => {
    const agent = { autonomousMinutes: 60, autonomousCron: "0 * * * *", autonomousTimezone: "UTC" };
    // Due 08:00, claimed at 11:20: one run now, and the next is 12:00, not 09:00, 10:00, 11:00.
    expect(nextSlot(agent, at("2026-11-21T08:00:00Z"), at("2026-11-21T11:20:00Z"))).toEqual(
      at("2026-11-21T12:00:00Z"),
    );
  });

  it("takes a new expression or zone at once, and keeps the slot when neither changed", () => {
    const now = at("2026-11-27T12:00:00Z");
    const cron = { autonomousCron: "0 9 * * 1-5", autonomousTimezone: berlin, paused: false };
    const before = {
      autonomousEnabled: true,
      autonomousMinutes: 60,
      autonomousNextRunAt: at("2026-11-30T08:00:00Z"),
      ...cron,
    };
    const { autonomousNextRunAt: _, ...config } = before;
    expect(nextRunAfterChange(undefined, config, now)).toEqual(at("2026-11-30T08:00:00Z"));
    expect(
      nextRunAfterChange(
        { ...before, autonomousNextRunAt: at("2026-12-01T08:00:00Z") },
        before,
        now,
      ),
    ).toEqual(at("2026-12-01T08:00:00Z"));
    expect(
      nextRunAfterChange(before, { ...before, autonomousTimezone: "America/New_York" }, now),
    ).toEqual(at("2026-11-27T14:00:00Z"));
    // Back to an interval: due at once, as when switched on.
    expect(nextRunAfterChange(before, { ...before, autonomousCron: null }, now)).toEqual(now);
  });

  it("refuses a bad expression or zone with a sentence, and names zones canonically", () => {
    const problem = (value: unknown) =>
      autonomousCronSchema.safeParse(value).error?.issues[0]?.message;
    expect(problem("0 9 * * 1-5")).toBeUndefined();
    expect(problem("61 * * * *")).toMatch(/not a five-field cron expression.*minute: 61/);
    expect(problem("* * * * * *")).toMatch(/exactly 5 parts/);
    expect(problem("0 0 30 2 *")).toMatch(/never comes/);
    expect(autonomousTimezoneSchema.parse("europe/berlin")).toBe("Europe/Berlin");
    for (const name of ["Mars/Olympus", "+02:00", "-05", "+0200"])
      expect(autonomousTimezoneSchema.safeParse(name).error?.issues[0]?.message, name).toMatch(
        /is not an IANA time zone name/,
      );
    expect(autonomousTimezoneSchema.parse("Etc/GMT+2")).toBe("Etc/GMT+2");
  });

  it("says a schedule in words", () => {
    expect(describeCron("0 9 * * 1-5", berlin)).toBe(
      "At 09:00, Monday through Friday, Europe/Berlin",
    );
  });
});
