/**
 * Where an echo chat's memory goes, by origin (BENCHMARKS.md cites it): every chat allocates,
 * the collector's threads pay for it (V8Worker in bench/cpu-by-thread.ts), and allocation is
 * steadier to compare than CPU time on this machine.
 *
 *   NEXT_SERVER_SOURCE_MAPS=1 npx next build --no-mangling
 *   npx tsx bench/allocation-profile.ts [chats]
 *
 * Needs PostgreSQL at BENCH_DATABASE_URL or TEST_DATABASE_URL (a throwaway database is made and
 * dropped). Starts the built service (one web process, scheduler off), warms it up with 3,000
 * echo chats at one connection, then samples its allocations (V8's sampling heap profiler,
 * every 4 KiB, freed objects included: bench/allocation-profile-preload.cjs) over `chats` more
 * (default 5,000), and prints the bytes a chat by group and origin (bench/profile-origins.ts),
 * then the functions that allocate most.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { SERVER_NODE_OPTIONS, startServer } from "../tests/helpers/server";
import { createThrowawayDatabase } from "../tests/helpers/throwaway-postgres";
import { createLoadAgent } from "./load-agent";
import { type CallFrame, groupOf, originOf } from "./profile-origins";

type ProfileNode = { callFrame: CallFrame; selfSize: number; children: ProfileNode[] };

const chats = Number(process.argv[2] ?? 5000);
const serverUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
if (!serverUrl)
  throw new Error("Set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a PostgreSQL server.");

const profileDir = mkdtempSync(path.join(tmpdir(), "allocation-"));
const database = await createThrowawayDatabase(serverUrl, "allocation");
try {
  const server = await startServer({
    DATABASE_URL: database.url,
    LLM_MAX_CONCURRENCY: "1000",
    SCHEDULER: "off",
    WEB_CONCURRENCY: "1",
    NODE_OPTIONS: `${SERVER_NODE_OPTIONS} --require ${path.resolve("bench/allocation-profile-preload.cjs")}`,
    ALLOCATION_PROFILE_DIR: profileDir,
  });
  try {
    await createLoadAgent(server.url, { aid: "allocating", model: "echo" });
    const chat = (amount: number) =>
      autocannon({
        url: `${server.url}/allocating/chat?q=hello&chat_id=bench`,
        headers: { accept: "text/plain" },
        connections: 1,
        amount,
      });
    await chat(3000);
    process.kill(server.pid, "SIGUSR2");
    // The signal is handled on the server's next turn of its loop, before the next request.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const result = await chat(chats);
    const ok = result.statusCodeStats?.["200"]?.count ?? 0;
    if (ok !== chats) throw new Error(`${chats - ok} of ${chats} chats were not 200`);
  } finally {
    await server.stop();
  }
  const file = readdirSync(profileDir).find((name) => name.endsWith(".heapprofile"));
  if (!file) throw new Error("the server wrote no allocation profile");
  report(JSON.parse(readFileSync(path.join(profileDir, file), "utf8")).head as ProfileNode);
} finally {
  await database.drop();
  rmSync(profileDir, { recursive: true, force: true });
}

function report(head: ProfileNode) {
  const groups = new Map<string, Map<string, number>>();
  const functions = new Map<string, number>();
  let total = 0;
  const visit = (node: ProfileNode) => {
    if (node.selfSize > 0) {
      const origin = originOf(node.callFrame);
      const group = groupOf(origin);
      const origins = groups.get(group) ?? new Map<string, number>();
      origins.set(origin, (origins.get(origin) ?? 0) + node.selfSize);
      groups.set(group, origins);
      const name = `${node.callFrame.functionName || "(anonymous)"} in ${origin}`;
      functions.set(name, (functions.get(name) ?? 0) + node.selfSize);
      total += node.selfSize;
    }
    for (const child of node.children) visit(child);
  };
  visit(head);
  const perChat = (bytes: number) => `${(bytes / chats / 1024).toFixed(1)} KiB`.padStart(10);
  const sum = (origins: Map<string, number>) => [...origins.values()].reduce((a, b) => a + b, 0);
  console.info(`${perChat(total).trim()} allocated a chat, over ${chats} echo chats`);
  for (const [group, origins] of [...groups].sort((a, b) => sum(b[1]) - sum(a[1]))) {
    console.info(`${perChat(sum(origins))}  ${group}`);
    for (const [origin, bytes] of [...origins].sort((a, b) => b[1] - a[1]).slice(0, 5))
      console.info(`${"".padStart(4)}${perChat(bytes)}  ${origin}`);
  }
  console.info("the functions that allocate most:");
  for (const [name, bytes] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, 15))
    console.info(`${perChat(bytes)}  ${name}`);
}
