/**
 * What the request log costs a chat's process, in isolation (BENCHMARKS.md, "The request log"):
 *
 *   npx tsx bench/request-log.ts
 *
 * Needs PostgreSQL at BENCH_DATABASE_URL or TEST_DATABASE_URL (a throwaway database is made and
 * dropped). Records rows as chats' ends do (server/requests `RequestLog.record`) and writes them
 * as the process does (`flush`: 500-row INSERTs from one JSON parameter), and reads this
 * process's CPU time (user + system) around each part: the part on a chat's path (`record`)
 * and the part off it (the writes), per row. Rounds of 10,000 rows; the median is printed.
 */

import { type RequestEntry, RequestLog } from "@/server/requests";
import { createDatabase } from "../db/client";
import { createThrowawayDatabase } from "../tests/helpers/throwaway-postgres";
import { median } from "./median";

const serverUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
if (!serverUrl)
  throw new Error("Set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a PostgreSQL server.");
const ROWS = 10_000;
const ROUNDS = 5;

const cpuUs = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

const entry = (i: number): RequestEntry => ({
  started_at: new Date(),
  via: i % 3 === 0 ? "completions" : "chat",
  aid: "support-bot",
  caller: `addr:${(i % 997).toString(16).padStart(16, "0")}`,
  chat_id: `c-${i}`,
  model: "gpt-4o-mini",
  status: i % 10 === 0 ? 429 : 200,
  code: i % 10 === 0 ? "quota_exceeded" : null,
  latency_ms: 250 + (i % 50),
  input_tokens: i % 10 === 0 ? null : 42,
  output_tokens: i % 10 === 0 ? null : 200,
  cost: i % 10 === 0 ? null : 0.000127,
  request_id: "9d0c4b1e-5a55-4c59-9a47-0f3e1c2b7d61",
});

const database = await createThrowawayDatabase(serverUrl, "rlog");
const handle = createDatabase({ kind: "postgres", url: database.url });
try {
  await handle.migrate();
  const log = new RequestLog(handle.db);
  const recordUs: number[] = [];
  const writeUs: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const rows = Array.from({ length: ROWS }, (_, i) => entry(i));
    const beforeRecord = cpuUs();
    // As chats end, one row at a time (the write the 500th starts runs after the loop).
    for (const row of rows) log.record(row);
    const afterRecord = cpuUs();
    await log.flush();
    const afterWrite = cpuUs();
    if (log.pending !== 0) throw new Error(`${log.pending} rows were not written`);
    // Round 0 warms up (JIT, prepared statement).
    if (round === 0) continue;
    recordUs.push((afterRecord - beforeRecord) / ROWS);
    writeUs.push((afterWrite - afterRecord) / ROWS);
  }
  console.info(`CPU µs per row, ${ROWS.toLocaleString("en")} rows a round, ${ROUNDS} rounds:`);
  console.info(
    `record (on the chat's path)  ${median(recordUs).toFixed(2).padStart(6)}   ${recordUs.map((v) => v.toFixed(2)).join(" ")}`,
  );
  console.info(
    `write (500-row INSERTs)      ${median(writeUs).toFixed(2).padStart(6)}   ${writeUs.map((v) => v.toFixed(2)).join(" ")}`,
  );
} finally {
  await handle.close();
  await database.drop();
}
