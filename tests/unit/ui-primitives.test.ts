import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The dashboard's controls, tables and their look come from components/ui: a button, table or
 * form control written by hand elsewhere would miss its styles, its defaults (a button that does
 * not submit a form by accident) and its states. Inline styles are refused everywhere: the look
 * lives in the CSS modules beside each component.
 */

const ROOT = path.resolve(import.meta.dirname, "../..");
const SCANNED = ["app", "components"];
const PRIMITIVES_DIR = path.join("components", "ui");
const HAND_WRITTEN = /<(button|table|input|select|textarea)\b/g;
const INLINE_STYLE = /style=\{\{/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(relative);
    return /\.(tsx|ts|jsx|js)$/.test(entry.name) ? [relative] : [];
  });
}

/** Every match of `pattern` in the scanned files, as `file:line: what`. */
function findings(pattern: RegExp, skip: (file: string) => boolean): string[] {
  return SCANNED.flatMap(sourceFiles)
    .filter((file) => !skip(file))
    .flatMap((file) =>
      readFileSync(path.join(ROOT, file), "utf8")
        .split("\n")
        .flatMap((line, index) =>
          [...line.matchAll(pattern)].map((match) => `${file}:${index + 1}: ${match[0]}`),
        ),
    );
}

describe("the dashboard's visual primitives", () => {
  it("renders buttons, tables and form controls only through components/ui", () => {
    const outside = findings(HAND_WRITTEN, (file) =>
      file.startsWith(`${PRIMITIVES_DIR}${path.sep}`),
    );
    expect(outside, "use Button, Table, Input, Select, Textarea or Checkbox instead").toEqual([]);
  });

  it("has no inline style anywhere", () => {
    expect(
      findings(INLINE_STYLE, () => false),
      "put the rule in a CSS module",
    ).toEqual([]);
  });
});
