/**
 * A busy agent: every chat to one agent, with one web worker and with two (BENCHMARKS.md cites
 * it):
 *
 *   npx next build && npx tsx bench/hot-agent.ts
 *
 * 64 connections chat with one agent (no message limits, no rate limit), each chat on one of
 * 1,000 threads in turn, as many callers of a popular agent would, for DB_CHAT_S seconds after a
 * warm-up, on a PostgreSQL server of its own (bench/database-per-chat.ts). One worker and two,
 * in DB_ROUNDS rounds that alternate which goes first; medians. Every chat of the agent takes its
 * quota row, so this is where waiting on one row shows. `npm run bench` runs it as
 * BENCH_ONLY=hot-agent.
 */
import { pathToFileURL } from "node:url";
import { inRounds } from "./database-per-chat";

export async function runHotAgent() {
  const load = { agents: 1, threads: 1000 };
  const [one, two] = await inRounds([
    { name: "one worker", load: { ...load, workers: 1 } },
    { name: "two workers", load: { ...load, workers: 2 } },
  ]);
  if (!one || !two) throw new Error("a hot-agent measurement is missing");
  console.info(
    `hot agent, c=64 on one agent over 1,000 threads (medians): one worker ${one.chats_per_s.toFixed(0)} chats/s (PostgreSQL ${one.postgres_cpu_ms_per_chat.toFixed(3)} ms CPU a chat), two ${two.chats_per_s.toFixed(0)} chats/s (${two.postgres_cpu_ms_per_chat.toFixed(3)} ms): two over one ${(two.chats_per_s / one.chats_per_s).toFixed(2)}× (${one.non_2xx + two.non_2xx} non-2xx)`,
  );
  return { one_worker: one, two_workers: two };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runHotAgent();
}
