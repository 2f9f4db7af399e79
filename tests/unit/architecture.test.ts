import { spawnSync } from "node:child_process";
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { importRuleBreaches } from "../helpers/import-rules";

/**
 * The module structure docs/architecture.md describes, checked on every import (types and
 * relative paths included, tests/helpers/import-rules.ts). Biome says the same in an editor
 * (biome.json's noRestrictedImports and noImportCycles); the planted copy below shows both fire.
 */

const root = path.resolve(import.meta.dirname, "../..");
const server = path.join(root, "server");
const domains = readdirSync(server, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

describe("the module structure", () => {
  it("gives every server domain one public surface, index.ts", () => {
    const shelves = ["frame", "kit"];
    expect(
      domains.filter(
        (domain) => !shelves.includes(domain) && !existsSync(path.join(server, domain, "index.ts")),
      ),
    ).toEqual([]);
  });

  it("keeps the import rules: public surfaces, no loose files, no circles, types counted", () => {
    expect(importRuleBreaches(root)).toEqual([]);
  });

  it("catches a deep import and a circle planted in a scratch copy, as Biome does", () => {
    const scratch = mkdtempSync(path.join(tmpdir(), "import-rules-"));
    try {
      for (const dir of ["server", "db"])
        cpSync(path.join(root, dir), path.join(scratch, dir), { recursive: true });
      for (const file of ["biome.json", ".gitignore", "tsconfig.json", "package.json"])
        cpSync(path.join(root, file), path.join(scratch, file));
      // A deep import of another domain, by the alias and by a relative path; and a circle of
      // type imports alone: kit/clock.ts is below every domain, so it may not name one.
      writeFileSync(
        path.join(scratch, "server/chat/planted.ts"),
        [
          'import type { RestDispatch } from "@/server/rest/route";',
          'import { listAgents } from "../agents/list";',
          "export type Planted = [RestDispatch, typeof listAgents];",
          "",
        ].join("\n"),
      );
      appendFileSync(
        path.join(scratch, "server/kit/clock.ts"),
        'import type { ChatReply } from "@/server/chat";\nexport type Planted = ChatReply;\n',
      );
      const breaches = importRuleBreaches(scratch);
      expect(breaches).toEqual(
        expect.arrayContaining([
          expect.stringContaining('server/chat/planted.ts imports "@/server/rest/route"'),
          expect.stringContaining('server/chat/planted.ts imports "../agents/list"'),
          expect.stringMatching(/kit\/clock → .*chat|chat → .*kit\/clock/),
        ]),
      );
      const biome = spawnSync(
        path.join(root, "node_modules/.bin/biome"),
        ["lint", "--reporter=github", "server"],
        { cwd: scratch, encoding: "utf8" },
      );
      expect(biome.stdout).toMatch(/noRestrictedImports,file=[^,]*planted\.ts/);
      expect(biome.stdout).toMatch(/noImportCycles,file=[^,]*clock\.ts/);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it("lets the browser's code take a domain's values only from its schema.ts and view.ts", () => {
    const offending: string[] = [];
    const files = ["components", "app"].flatMap((dir) => sourceFiles(path.join(root, dir)));
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      const client =
        file.includes(`${path.sep}components${path.sep}`) || /^"use client"/.test(text);
      if (!client) continue;
      for (const [statement, kind, names = "", spec = ""] of text.matchAll(
        /^import(\s+type)?\s*\{([^}]*)\}\s*from\s+["'](@\/server\/[^"']+)["']/gm,
      )) {
        if (kind || spec.endsWith("/schema") || spec.endsWith("/view")) continue;
        // Only types (`import { type X }`): erased, nothing of the server reaches the browser.
        const specifiers = names
          .split(",")
          .map((name) => name.trim())
          .filter(Boolean);
        if (specifiers.every((name) => name.startsWith("type "))) continue;
        offending.push(`${path.relative(root, file)}: ${statement.replace(/\s+/g, " ")}`);
      }
    }
    expect(offending).toEqual([]);
  });
});
