import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { envSchema } from "@/server/frame/config";

const root = path.resolve(import.meta.dirname, "../..");
const variables = Object.keys(envSchema.shape).sort();

/**
 * The names in the first cell of the rows of docs/configuration.md, the guide to the variables.
 * A cell may name several: "`A_TOTAL` / `_MONTHLY`" is A_TOTAL and A_MONTHLY.
 */
function documentedInGuide(): string[] {
  const guide = readFileSync(path.join(root, "docs/configuration.md"), "utf8");
  const names: string[] = [];
  for (const [, cell] of guide.matchAll(/^\| (`[A-Z][A-Z0-9_]*`(?: \/ `_?[A-Z0-9_]+`)*) \|/gm)) {
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
  it("has one row in docs/configuration.md for each variable the service reads, and no other", () => {
    const documented = documentedInGuide();
    expect([...documented].sort()).toEqual(variables);
  });

  it("has every variable in .env.example, set or commented out, in the guide's order", () => {
    const example = readFileSync(path.join(root, ".env.example"), "utf8");
    const named = [...example.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1] as string);
    expect(variables.filter((name) => !named.includes(name))).toEqual([]);
    const inOrder = [...new Set(named.filter((name) => variables.includes(name)))];
    expect(inOrder).toEqual(documentedInGuide());
  });
});
