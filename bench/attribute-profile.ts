/**
 * Where a CPU profile of the service spent its busy time, by origin rather than by function
 * (BENCHMARKS.md cites it). A production build bundles the service and most of its packages
 * into minified chunks, where a profile names nothing; built with source maps and without
 * mangling, each sample maps back to its source file, and so to its package:
 *
 *   NEXT_SERVER_SOURCE_MAPS=1 npx next build --no-mangling
 *   npx tsx bench/profile-model-chat.ts sse 16 20
 *   npx tsx bench/attribute-profile.ts bench/results/profiles/<pid>.cpuprofile [seconds]
 *
 * Only the last `seconds` (default 12) before the load ended are counted, not the start-up.
 * Prints each group's share of the busy time, then the origins within it.
 */
import { readFileSync } from "node:fs";
import { groupOf, originOf } from "./profile-origins";

type ProfileNode = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
};
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number };

const [file, seconds = "12"] = process.argv.slice(2);
if (!file) throw new Error("usage: attribute-profile.ts <file.cpuprofile> [seconds]");
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;

/** Self time per node, over the window that ends where the load ended (the last busy run). */
function selfTimes(): Map<number, number> {
  const idle = new Set(
    profile.nodes.filter((n) => n.callFrame.functionName === "(idle)").map((n) => n.id),
  );
  const at: number[] = [];
  let time = profile.startTime;
  let lastBusy = 0;
  profile.samples.forEach((id, i) => {
    time += profile.timeDeltas[i] ?? 0;
    at.push(time);
    if (!idle.has(id)) lastBusy = time;
  });
  // The server's stop (after the load) is busy too: end the window 3 s before the last busy sample.
  const end = lastBusy - 3e6;
  const start = end - Number(seconds) * 1e6;
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    const t = at[i] ?? 0;
    if (t >= start && t <= end) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return self;
}

const self = selfTimes();
const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
const groups = new Map<string, Map<string, number>>();
let busy = 0;
for (const [id, time] of self) {
  const node = byNode.get(id);
  if (!node || node.callFrame.functionName === "(idle)") continue;
  const origin = originOf(node.callFrame);
  const group = groupOf(origin);
  const origins = groups.get(group) ?? new Map<string, number>();
  origins.set(origin, (origins.get(origin) ?? 0) + time);
  groups.set(group, origins);
  busy += time;
}
const sum = (origins: Map<string, number>) => [...origins.values()].reduce((a, b) => a + b, 0);
const percent = (time: number) => `${((100 * time) / busy).toFixed(1)}%`;
console.info(`busy ${(busy / 1e6).toFixed(2)} s in the last ${seconds} s of the load`);
for (const [group, origins] of [...groups].sort((a, b) => sum(b[1]) - sum(a[1]))) {
  console.info(`${percent(sum(origins)).padStart(6)}  ${group}`);
  for (const [origin, time] of [...origins].sort((a, b) => b[1] - a[1]).slice(0, 6))
    console.info(`${"".padStart(8)}${percent(time).padStart(6)}  ${origin}`);
}
