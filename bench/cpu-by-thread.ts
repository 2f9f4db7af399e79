/**
 * CPU per chat by thread, the service against the baseline, one kind of chat per run:
 *
 *   npx next build && npx tsx bench/cpu-by-thread.ts [json|sse] [chats]
 *
 * Needs PostgreSQL at BENCH_DATABASE_URL or TEST_DATABASE_URL (a throwaway database is made and
 * dropped). Starts the fake model (bench/fake-model.ts, `CPU_MODEL`, default fake-t200-w20-l250),
 * the built service (one web process) and the baseline (bench/baseline-process.ts); warms each
 * up with 400 chats, then reads every thread's CPU time (utime + stime of
 * /proc/<pid>/task/<tid>/stat) around `chats` chats (default 1,200) at 16 connections, a fresh
 * thread each, and prints it per chat by thread name: the main thread, V8's workers (GC and
 * compilation), libuv's pool. bench/cpu-per-request.ts mixes every kind of request in one
 * process in rounds of 300; this asks one kind, more times, and says which thread spent it.
 *
 * CPU_AGAINST=<directory> measures a second service beside the first: another checkout of this
 * repository, built there (an A/B of two builds in one run), on a database of its own. CPU_ROUNDS (default 1) repeats the
 * measurement of each, in turn, each round starting with the next of them, so that drift and the
 * place in the round fall on all of them alike; then prints each one's median.
 */
import { readdirSync, readFileSync } from "node:fs";
import autocannon from "autocannon";
import { createDatabase } from "../db/client";
import { startServer } from "../tests/helpers/server";
import { createThrowawayDatabase } from "../tests/helpers/throwaway-postgres";
import { createLoadAgent } from "./load-agent";
import { median } from "./median";
import { startChild, startServerIn } from "./processes";

const [format = "json", chatsArg = "1200"] = process.argv.slice(2);
const chats = Number(chatsArg);
const serverUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
if (!serverUrl)
  throw new Error("Set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a PostgreSQL server.");
const model = process.env.CPU_MODEL || "fake-t200-w20-l250";

/** CPU ms by thread name (numbered threads of one kind summed) of `pid` and its children. */
function cpuByThread(pid: number): Map<string, number> {
  const ticksPerMs = 100 / 1000;
  const spent = new Map<string, number>();
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(" ");
  for (const member of [pid, ...children.filter(Boolean).map(Number)]) {
    for (const tid of readdirSync(`/proc/${member}/task`)) {
      try {
        const name = readFileSync(`/proc/${member}/task/${tid}/comm`, "utf8").trim();
        const stat = readFileSync(`/proc/${member}/task/${tid}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        const kind = name.replace(/\d+$/, "");
        const ms = (Number(fields[11]) + Number(fields[12])) / ticksPerMs;
        spent.set(kind, (spent.get(kind) ?? 0) + ms);
      } catch {
        // A thread that ended between the listing and the read.
      }
    }
  }
  return spent;
}

const database = await createThrowawayDatabase(serverUrl, "threads");
const migrated = createDatabase({ kind: "postgres", url: database.url });
await migrated.migrate();
await migrated.close();
const fake = await startChild("bench/fake-model.ts");
const llm = { LLM_BASE_URL: fake.url, LLM_API_KEY: "sk-bench" };
const serviceEnv = { DATABASE_URL: database.url, SCHEDULER: "off", WEB_CONCURRENCY: "1", ...llm };
const service = await startServer(serviceEnv);
// The other build on a database of its own: the two may differ in schema (it migrates its own).
const againstDatabase = process.env.CPU_AGAINST
  ? await createThrowawayDatabase(serverUrl, "threads")
  : undefined;
const against = await startServerIn(process.env.CPU_AGAINST, {
  ...serviceEnv,
  ...(againstDatabase ? { DATABASE_URL: againstDatabase.url } : {}),
});
const baseline = await startChild("bench/baseline-process.ts", {
  BASELINE_DATABASE_URL: database.url,
  ...llm,
});
try {
  await createLoadAgent(service.url, { aid: "threads", model });
  if (against) await createLoadAgent(against.url, { aid: "threads", model });
  const accept = format === "sse" ? "text/event-stream" : "application/json";
  const targets: [string, string, number][] = [
    ["service", service.url, service.pid],
    ...(against ? [["against", against.url, against.pid] as [string, string, number]] : []),
    ["baseline", baseline.url, baseline.pid],
  ];
  const rounds = Number(process.env.CPU_ROUNDS || 1);
  // Each round starts one further along: whichever is measured first in a round reads higher,
  // whatever it is, so the first place must fall on each in turn.
  const order = Array.from({ length: rounds }, (_, round) =>
    targets.map((_, index) => targets[(index + round) % targets.length] as (typeof targets)[0]),
  ).flat();
  const warmed = new Set<string>();
  const totals = new Map<string, number[]>();
  for (const [name, url, pid] of order) {
    const ask = (amount: number) =>
      autocannon({
        url: `${url}/threads/chat?q=hello&chat_id=c-[<id>]`,
        idReplacement: true,
        headers: { accept },
        connections: 16,
        amount,
      });
    // Each is warmed up before its first round.
    if (!warmed.has(name)) await ask(400);
    warmed.add(name);
    const before = cpuByThread(pid);
    const result = await ask(chats);
    const after = cpuByThread(pid);
    const ok = result.statusCodeStats?.["200"]?.count ?? 0;
    if (ok !== chats) throw new Error(`${name}: ${chats - ok} of ${chats} chats were not 200`);
    const rows = [...after]
      .map(([kind, ms]) => [kind, (ms - (before.get(kind) ?? 0)) / chats] as const)
      .filter(([, perChat]) => perChat > 0);
    const total = rows.reduce((sum, [, perChat]) => sum + perChat, 0);
    totals.set(name, [...(totals.get(name) ?? []), total]);
    console.info(
      `${name.padEnd(8)} ${format}: ${total.toFixed(2)} ms CPU a chat (${rows.map(([kind, perChat]) => `${kind} ${perChat.toFixed(2)}`).join(", ")})`,
    );
  }
  if (rounds > 1) {
    for (const [name, figures] of totals)
      console.info(
        `${name.padEnd(8)} ${format}: median ${median(figures).toFixed(2)} ms CPU a chat`,
      );
  }
} finally {
  await service.stop();
  await against?.stop();
  await baseline.stop();
  await fake.stop();
  await database.drop();
  await againstDatabase?.drop();
}
