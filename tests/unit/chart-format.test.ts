import { describe, expect, it } from "vitest";
import { bucketLabel, figureLabel, timeTicks, valueTicks } from "@/components/usage/chart-format";

/** What a usage chart writes: distinct tick labels at any scale, dates as the tables write them. */

describe("a chart's labels", () => {
  it("gives small costs the decimals their ticks need, not 0, 0, 0", () => {
    expect(valueTicks([0, 0.00001, 0.00002, 0.00003], 0.00001)).toEqual([
      "0",
      "0.00001",
      "0.00002",
      "0.00003",
    ]);
    expect(valueTicks([0, 0.000025, 0.00005], 0.000025)).toEqual(["0", "0.000025", "0.00005"]);
    expect(valueTicks([0, 50, 100], 50)).toEqual(["0", "50", "100"]);
    expect(valueTicks([0, 500_000, 1_000_000, 1_500_000], 500_000)).toEqual([
      "0",
      "500K",
      "1M",
      "1.5M",
    ]);
  });

  it("writes days as ISO dates of UTC days, and hours on a 24-hour clock", () => {
    const day = Date.parse("2026-10-27T00:00:00Z") / 1000;
    expect(timeTicks([day, day + 86_400], false)).toEqual(["2026-10-27", "2026-10-28"]);
    expect(timeTicks([day, day + 6 * 3600], true)).toEqual(["2026-10-27", "06:00"]);
    expect(bucketLabel(day, false)).toBe("2026-10-27");
    expect(bucketLabel(day + 8 * 3600, true)).toBe("2026-10-27 08:00 UTC");
    expect(bucketLabel(null, false)).toBe("—");
  });

  it("gives a figure whole in the legend", () => {
    expect(figureLabel(0.00001875, "cost")).toBe("0.00001875");
    expect(figureLabel(1204, "count")).toBe("1,204");
    // A cost without a price is unknown, not 0 and not a dash that reads as nothing.
    expect(figureLabel(null, "cost")).toBe("unknown");
  });
});
