import { describe, expect, it } from "vitest";
import { refreshEvery } from "@/components/trpc";

/** How often a dashboard query refreshes: its own interval, or every 3 s after an outage. */

const unreachable = new TypeError("Failed to fetch");
const answered = { data: { httpStatus: 500, problem: { detail: "Internal error.", status: 500 } } };
const state = (status: string, error: unknown = null) => ({ state: { status, error } });

describe("refreshEvery", () => {
  it("keeps the query's own interval while it succeeds, or fails with an answer", () => {
    expect(refreshEvery(60_000)(state("success"))).toBe(60_000);
    expect(refreshEvery(false)(state("success"))).toBe(false);
    expect(refreshEvery(60_000)(state("error", answered))).toBe(60_000);
    expect(refreshEvery(false)(state("error", answered))).toBe(false);
  });

  it("tries every 3 s while the service cannot be reached, whatever the query's own interval", () => {
    expect(refreshEvery(60_000)(state("error", unreachable))).toBe(3_000);
    expect(refreshEvery(5_000)(state("error", unreachable))).toBe(3_000);
    expect(refreshEvery(false)(state("error", unreachable))).toBe(3_000);
  });
});
