import { readFileSync } from "node:fs";

type N = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
};
const [file, filter] = process.argv.slice(2);
const p = JSON.parse(readFileSync(file as string, "utf8")) as {
  nodes: N[];
  samples: number[];
  timeDeltas: number[];
};
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map<number, number>();
p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
let total = 0;
for (const [id, t] of self) if (byId.get(id)?.callFrame.functionName !== "(idle)") total += t;
const name = (n: N) =>
  `${n.callFrame.functionName || "(anon)"} ${n.callFrame.url.replace(/.*\/(node_modules|work\/main)\//, "")}:${n.callFrame.lineNumber}`;
// stacks matching filter: aggregate by 6-frame stack
const agg = new Map<string, number>();
for (const [id, t] of self) {
  const n = byId.get(id) as N;
  if (!name(n).includes(filter as string)) continue;
  const chain: string[] = [];
  let cur: number | undefined = id;
  for (let k = 0; k < 9 && cur !== undefined; k++) {
    chain.push(name(byId.get(cur) as N));
    cur = parent.get(cur);
  }
  const key = chain.join("\n    <- ");
  agg.set(key, (agg.get(key) ?? 0) + t);
}
for (const [k, t] of [...agg].sort((a, b) => b[1] - a[1]).slice(0, 6))
  console.log(((100 * t) / total).toFixed(2) + "% " + k + "\n");
