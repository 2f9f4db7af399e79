import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The front door stays a front door and the reports stay reports: history lives in git, the
 * reference of each path in the OpenAPI document.
 */
const root = path.resolve(import.meta.dirname, "../..");
const BOUNDS = { "README.md": 200, "BENCHMARKS.md": 300, "RELIABILITY.md": 200 };

describe("the top-level documents", () => {
  it.each(Object.entries(BOUNDS))("%s has at most %i lines", (file, bound) => {
    const lines = readFileSync(path.join(root, file), "utf8").trimEnd().split("\n").length;
    expect(lines, `${file} has ${lines} lines`).toBeLessThanOrEqual(bound);
  });
});
