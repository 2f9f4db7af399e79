import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/**
 * The import rules of docs/architecture.md, checked on a checkout at `root`: every import
 * counts (type-only, re-exports, dynamic `import()`, relative or by the `@/` alias), resolved
 * to the file it names. Returns one sentence per breach, empty when the rules hold.
 *
 * - A server domain (a folder of server/ with an index.ts) is reached from outside only
 *   through index.ts, schema.ts or view.ts. frame/ and kit/ are shelves: each file is its own
 *   surface. Nothing else sits loose at server/'s root.
 * - No cycle between units: a domain is one unit, each frame/ and kit/ file is one, db/ is one.
 */
export function importRuleBreaches(root: string): string[] {
  const breaches: string[] = [];
  const server = path.join(root, "server");
  const shelves = new Set(["frame", "kit"]);
  const files = ["server", "app", "components", "db", "tests", "bench", "scripts"]
    .map((dir) => path.join(root, dir))
    .filter((dir) => existsSync(dir))
    .flatMap((dir) => sourceFiles(dir));
  files.push(...["instrumentation.ts"].map((f) => path.join(root, f)).filter(existsSync));

  const unitOf = (file: string): string | undefined => {
    if (file.startsWith(path.join(root, "db") + path.sep)) return "db";
    if (!file.startsWith(server + path.sep)) return undefined;
    const parts = path.relative(server, file).split(path.sep);
    if (parts.length === 1) return `server/${parts[0]}`;
    const folder = parts[0] as string;
    return shelves.has(folder) ? `${folder}/${parts[1]?.replace(/\.tsx?$/, "")}` : folder;
  };

  const edges = new Map<string, Set<string>>();
  for (const file of files) {
    const from = unitOf(file);
    const relativeName = path.relative(root, file);
    if (from?.startsWith("server/"))
      breaches.push(`${relativeName} sits loose at server/'s root: put it in frame/ or kit/.`);
    for (const spec of importsOf(file)) {
      const target = resolve(root, file, spec);
      if (!target) continue;
      const to = unitOf(target);
      if (!to || to === from) continue;
      if (from) {
        if (!edges.has(from)) edges.set(from, new Set());
        edges.get(from)?.add(to);
      }
      if (!target.startsWith(server + path.sep)) continue;
      const parts = path.relative(server, target).split(path.sep);
      const folder = parts[0] as string;
      if (shelves.has(folder) || parts.length === 1) continue;
      const surface =
        parts.length === 2 && ["index.ts", "schema.ts", "view.ts"].includes(parts[1] as string);
      if (!surface)
        breaches.push(
          `${relativeName} imports "${spec}", inside server/${folder}: import @/server/${folder} (its index.ts), or its schema or view.`,
        );
    }
  }

  for (const cycle of cyclesOf(edges))
    breaches.push(`The units ${cycle.join(" → ")} import each other in a circle.`);
  return breaches;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) return [];
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(tsx?|mjs)$/.test(entry.name) ? [full] : [];
  });
}

/** Every module a file names: imports, type imports, re-exports and dynamic imports. */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  return info.importedFiles.map((imported) => imported.fileName);
}

function resolve(root: string, from: string, spec: string): string | undefined {
  let base: string;
  if (spec.startsWith("@/")) base = path.join(root, spec.slice(2));
  else if (spec.startsWith(".")) base = path.resolve(path.dirname(from), spec);
  else return undefined;
  const candidates = [
    base,
    `${base}.ts`,
    `${base}.tsx`,
    path.join(base, "index.ts"),
    base.replace(/\.js$/, ".ts"),
  ];
  return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

/** Every cycle of the graph, each as the path that closes it. */
function cyclesOf(edges: Map<string, Set<string>>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const visit = (unit: string, trail: string[]) => {
    state.set(unit, "open");
    for (const next of [...(edges.get(unit) ?? [])].sort()) {
      if (state.get(next) === "open")
        cycles.push([...trail.slice(trail.indexOf(next)), unit, next]);
      else if (!state.has(next)) visit(next, [...trail, unit]);
    }
    state.set(unit, "done");
  };
  for (const unit of [...edges.keys()].sort()) if (!state.has(unit)) visit(unit, []);
  return cycles;
}
