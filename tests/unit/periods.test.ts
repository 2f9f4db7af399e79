import { describe, expect, it } from "vitest";
import {
  nextUtcDayStart,
  nextUtcMonthStart,
  periodsAt,
  reservePeriods,
  secondsUntil,
  utcDay,
  utcHour,
  utcMonth,
} from "@/server/quota";

const at = (iso: string) => new Date(iso);

describe("UTC quota periods", () => {
  it("names the day and month in UTC, whatever the offset of the input", () => {
    expect(utcDay(at("2026-11-21T23:59:59.999Z"))).toBe("2026-11-21");
    expect(utcDay(at("2026-11-22T01:30:00+02:00"))).toBe("2026-11-21");
    expect(utcMonth(at("2026-11-30T23:59:59Z"))).toBe("2026-11-01");
  });

  it("rolls days over at midnight UTC, including leap days and year ends", () => {
    expect(nextUtcDayStart(at("2028-02-28T12:00:00Z")).toISOString()).toBe(
      "2028-02-29T00:00:00.000Z",
    );
    expect(nextUtcDayStart(at("2028-02-29T00:00:00Z")).toISOString()).toBe(
      "2028-03-01T00:00:00.000Z",
    );
    expect(nextUtcDayStart(at("2027-02-28T23:59:59Z")).toISOString()).toBe(
      "2027-03-01T00:00:00.000Z",
    );
    expect(nextUtcDayStart(at("2026-12-31T23:00:00Z")).toISOString()).toBe(
      "2027-01-01T00:00:00.000Z",
    );
  });

  it("rolls months over on the 1st at midnight UTC, December into January", () => {
    expect(nextUtcMonthStart(at("2028-02-29T23:59:59Z")).toISOString()).toBe(
      "2028-03-01T00:00:00.000Z",
    );
    expect(nextUtcMonthStart(at("2026-12-15T00:00:00Z")).toISOString()).toBe(
      "2027-01-01T00:00:00.000Z",
    );
    expect(nextUtcMonthStart(at("2026-01-31T10:00:00Z")).toISOString()).toBe(
      "2026-02-01T00:00:00.000Z",
    );
  });

  it("counts whole seconds up, never down, and never below zero", () => {
    expect(secondsUntil(at("2026-11-21T23:59:59.001Z"), at("2026-11-22T00:00:00Z"))).toBe(1);
    expect(secondsUntil(at("2026-11-21T23:00:00Z"), at("2026-11-22T00:00:00Z"))).toBe(3600);
    expect(secondsUntil(at("2026-11-22T00:00:01Z"), at("2026-11-22T00:00:00Z"))).toBe(0);
  });
});

describe("periods remembered between calls", () => {
  it("gives each instant its own day, month and hour when calls cross midnight and back", () => {
    const instants = [
      "2026-11-30T23:59:59.999Z",
      "2026-12-01T00:00:00.000Z",
      "2026-11-30T23:00:00.000Z",
      "2026-11-30T22:59:59.999Z",
      "2026-12-01T00:59:59.999Z",
      "2026-12-01T01:00:00.000Z",
      "2026-11-30T23:59:59.999Z",
    ];
    for (const iso of instants) {
      const now = at(iso);
      const fresh = {
        day: iso.slice(0, 10),
        month: `${iso.slice(0, 7)}-01`,
        dailyResetsAt: nextUtcDayStart(now).toISOString(),
        monthlyResetsAt: nextUtcMonthStart(now).toISOString(),
      };
      expect(periodsAt(now), iso).toEqual(fresh);
      expect(utcHour(now), iso).toBe(`${iso.slice(0, 13)}:00:00.000Z`);
      expect(reservePeriods(now), iso).toEqual({ day: fresh.day, month: fresh.month, now: iso });
    }
  });

  it("refuses an invalid date as before, whatever was asked last", () => {
    periodsAt(at("2026-11-30T12:00:00Z"));
    utcHour(at("2026-11-30T12:00:00Z"));
    expect(() => periodsAt(new Date(Number.NaN))).toThrow(RangeError);
    expect(() => utcHour(new Date(Number.NaN))).toThrow(RangeError);
  });
});
