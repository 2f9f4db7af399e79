import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { envSchema } from "@/server/frame/config";

const root = path.resolve(import.meta.dirname, "../..");
const variables = Object.keys(envSchema.shape).sort();

/**
 * The names in the first cell of the README's configuration rows. A cell may name several:
 * "`A_TOTAL` / `_MONTHLY`" is A_TOTAL and A_MONTHLY.
 */
function documentedInReadme(): string[] {
  const readme = readFileSync(path.join(root, "README.md"), "utf8");
  const names: string[] = [];
  for (const [, cell] of readme.matchAll(/^\| (`[A-Z][A-Z0-9_]*`(?: \/ `_?[A-Z0-9_]+`)*) \|/gm)) {
    const [first = "", ...rest] = [...(cell as string).matchAll(/`([A-Z0-9_]+)`/g)].map(
      (match) => match[1] as string,
    );
    names.push(first);
    const stem = first.slice(0, first.lastIndexOf("_"));
    for (const name of rest) names.push(name.startsWith("_") ? stem + name : name);
  }
  return names;
}

describe("the configuration's documentation", () => {
  it("has a README row for every variable the service reads, and none for others", () => {
    expect([...new Set(documentedInReadme())].sort()).toEqual(variables);
  });

  it("has every variable in .env.example, set or commented out", () => {
    const example = readFileSync(path.join(root, ".env.example"), "utf8");
    const named = new Set([...example.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]));
    expect(variables.filter((name) => !named.has(name))).toEqual([]);
  });
});
