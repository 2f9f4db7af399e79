import { describe, expect, it } from "vitest";
import { nextUtcDayStart, nextUtcMonthStart, secondsUntil, utcDay, utcMonth } from "@/server/quota";

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
