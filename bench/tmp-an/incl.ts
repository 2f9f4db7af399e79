import { existsSync, readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { fileURLToPath } from "node:url";

type N = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
};
const [file, mode = "incl", filter = ""] = process.argv.slice(2);
const p = JSON.parse(readFileSync(file as string, "utf8")) as {
  nodes: N[];
  samples: number[];
  timeDeltas: number[];
};
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const maps = new Map<string, SourceMap | undefined>();
const sm = (path: string) => {
  if (!maps.has(path))
    maps.set(
      path,
      existsSync(`${path}.map`)
        ? new SourceMap(JSON.parse(readFileSync(`${path}.map`, "utf8")))
        : undefined,
    );
  return maps.get(path);
};
const label = new Map<number, string>();
const name = (n: N): string => {
  if (label.has(n.id)) return label.get(n.id) as string;
  const { url, functionName, lineNumber, columnNumber } = n.callFrame;
  let where = url;
  if (url.includes("/.next/server/")) {
    const path = url.startsWith("file://") ? fileURLToPath(url) : url;
    const e = sm(path)?.findEntry(lineNumber, columnNumber) as
      | { originalSource?: string; originalLine?: number; name?: string }
      | undefined;
    if (e?.originalSource)
      where = `${e.originalSource.replace(/^.*?(node_modules\/|(?=(server|app|db)\/))/, "")}:${(e.originalLine ?? 0) + 1}`;
  } else where = `${url.replace(/.*node_modules\//, "")}:${lineNumber + 1}`;
  const s = `${functionName || "(anon)"} ${where}`;
  label.set(n.id, s);
  return s;
};
const self = new Map<number, number>();
const pp = p as unknown as { startTime: number };
const at: number[] = [];
let time = pp.startTime;
let lastBusy = 0;
p.samples.forEach((id, i) => {
  time += p.timeDeltas[i] ?? 0;
  at.push(time);
  if (byId.get(id)?.callFrame.functionName !== "(idle)") lastBusy = time;
});
const end = lastBusy - 3e6,
  start = end - Number(process.env.WINDOW_S || 15) * 1e6;
p.samples.forEach((id, i) => {
  const t = at[i] ?? 0;
  if (t >= start && t <= end) self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0));
});
let total = 0;
for (const [id, t] of self) if (byId.get(id)?.callFrame.functionName !== "(idle)") total += t;
const agg = new Map<string, number>();
for (const [id, t] of self) {
  if (byId.get(id)?.callFrame.functionName === "(idle)") continue;
  if (mode === "self") {
    const k = name(byId.get(id) as N);
    agg.set(k, (agg.get(k) ?? 0) + t);
    continue;
  }
  const seen = new Set<string>();
  let cur: number | undefined = id;
  while (cur !== undefined) {
    const k = name(byId.get(cur) as N);
    if (!seen.has(k)) {
      seen.add(k);
      agg.set(k, (agg.get(k) ?? 0) + t);
    }
    cur = parent.get(cur);
  }
}
console.log("busy ms", (total / 1000).toFixed(0));
for (const [k, t] of [...agg]
  .filter(([k]) => k.includes(filter))
  .sort((a, b) => b[1] - a[1])
  .slice(0, Number(process.env.TOP || 45)))
  console.log(((100 * t) / total).toFixed(1).padStart(5) + "% " + k);
