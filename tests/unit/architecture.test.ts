import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The module structure docs/architecture.md describes, checked. Biome checks the rest in
 * `npm test` (biome.json): imports of a domain go through its public surface
 * (noRestrictedImports) and no file imports itself back (noImportCycles).
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

/** The server domains a file imports at run time (`import type` is erased, so it cannot tie). */
function domainsImportedBy(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const found = new Set<string>();
  for (const [, kind, spec] of text.matchAll(
    /^(?:import|export)(\s+type)?[^"']*?from\s+["']([^"']+)["']/gm,
  )) {
    if (kind || !spec) continue;
    const alias = /^@\/server\/([^/]+)/.exec(spec)?.[1];
    const relative = spec.startsWith("../")
      ? path.relative(server, path.resolve(path.dirname(file), spec)).split(path.sep)[0]
      : undefined;
    const domain = alias ?? relative;
    if (domain && domains.includes(domain)) found.add(domain);
  }
  return [...found];
}

describe("the module structure", () => {
  it("gives every server domain one public surface, index.ts", () => {
    expect(domains.filter((domain) => !existsSync(path.join(server, domain, "index.ts")))).toEqual(
      [],
    );
  });

  it("has no two domain folders that depend on each other, directly or through others", () => {
    const edges = new Map<string, Set<string>>();
    for (const domain of domains) {
      const uses = new Set<string>();
      for (const file of sourceFiles(path.join(server, domain)))
        for (const used of domainsImportedBy(file)) if (used !== domain) uses.add(used);
      edges.set(domain, uses);
    }
    // Every cycle in the folder graph, as the path that closes it (depth-first search).
    const cycles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const visit = (domain: string, trail: string[]) => {
      state.set(domain, "open");
      for (const next of edges.get(domain) ?? []) {
        if (state.get(next) === "open")
          cycles.push([...trail.slice(trail.indexOf(next)), domain, next].join(" → "));
        else if (!state.has(next)) visit(next, [...trail, domain]);
      }
      state.set(domain, "done");
    };
    for (const domain of domains) if (!state.has(domain)) visit(domain, []);
    expect(cycles).toEqual([]);
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
