import { describe, expect, it } from "vitest";
import { MAX_REPORTED_TOKENS } from "@/server/providers";
import { MAX_TOOL_STEPS } from "@/server/tools";

describe("MAX_REPORTED_TOKENS", () => {
  it("keeps the turns of one reply summed within a stored integer (2^31 - 1)", () => {
    expect((MAX_TOOL_STEPS + 1) * MAX_REPORTED_TOKENS).toBeLessThanOrEqual(2 ** 31 - 1);
  });
});
