import autocannon from "autocannon";
import { cpuMs } from "../processes";

// usage: cpu.ts accept amount rounds url=pid [url=pid ...]
const [accept, amount, rounds, ...targets] = process.argv.slice(2);
const rows = targets.map((t) => {
  const [url, pid] = t.split("=");
  return { url: url as string, pid: Number(pid), spent: [] as number[] };
});
const run = async (row: (typeof rows)[number], n: number) => {
  const before = await cpuMs(row.pid);
  const r = await autocannon({
    url: `${row.url}/cpu/chat?q=hello&chat_id=c[<id>]`,
    idReplacement: true,
    headers: { accept: accept as string },
    connections: 16,
    amount: n,
  });
  const ok = r.statusCodeStats?.["200"]?.count ?? 0;
  if (ok !== n) throw new Error(`${row.url}: ${ok}/${n}`);
  return ((await cpuMs(row.pid)) - before) / n;
};
for (const row of rows) await run(row, 100);
for (let i = 0; i < Number(rounds); i++)
  for (const row of rows) row.spent.push(await run(row, Number(amount)));
for (const row of rows) {
  const s = [...row.spent].sort((a, b) => a - b);
  console.log(
    row.url,
    accept,
    "median",
    s[Math.floor(s.length / 2)]?.toFixed(2),
    row.spent.map((v) => v.toFixed(2)).join(" "),
  );
}
