/**
 * CPU time a request costs the serving process, the service against the baseline, with the
 * Next.js floor beside them (BENCHMARKS.md cites it):
 *
 *   npx next build && npx tsx bench/cpu-per-request.ts
 *
 * Needs PostgreSQL at BENCH_DATABASE_URL or TEST_DATABASE_URL (a throwaway database is made and
 * dropped). Starts the fake model (bench/fake-model.ts), the built service and the baseline
 * (bench/baseline-process.ts), each a process of its own, and reads each one's CPU time
 * (utime + stime, all threads) around a fixed number of requests at 16 connections:
 *
 * - chat, JSON and SSE, with a 250 ms model streaming 200 tokens in 20 writes (`CPU_MODEL`), a
 *   fresh thread per chat, through the service and through the baseline; the same chat asked as
 *   an OpenAI chat completion (POST /v1/chat/completions, streamed and not);
 * - the floor: Next.js's own 404 (no route of the service runs) and `GET /health/live` (a route
 *   handler that answers from memory, with the service's request log line and request id).
 *
 * The service runs twice, one web process each: REST routed by the server entry (the default)
 * and by Next.js's router (`REST_ROUTING=nextjs`), so the routing's cost is read in one run.
 *
 * Each row is warmed up, then measured `CPU_ROUNDS` times (default 4), the rows interleaved so
 * that the machine's drift falls on all of them; the median is printed beside every round.
 */
import autocannon from "autocannon";
import { createDatabase } from "../db/client";
import { startServer } from "../tests/helpers/server";
import { createThrowawayDatabase } from "../tests/helpers/throwaway-postgres";
import { createLoadAgent } from "./load-agent";
import { median } from "./median";
import { cpuMs, startChild } from "./processes";

const serverUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
if (!serverUrl)
  throw new Error("Set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a PostgreSQL server.");
const model = process.env.CPU_MODEL || "fake-t200-w20-l250";
const rounds = Number(process.env.CPU_ROUNDS || 4);
const CHATS = 300;
const FLOOR_REQUESTS = 3000;
const CONNECTIONS = 16;

type Row = {
  name: string;
  url: string;
  pid: number;
  accept?: string;
  requests: number;
  /** A POST with this JSON body (the OpenAI-compatible rows). */
  body?: string;
};

const database = await createThrowawayDatabase(serverUrl, "cpu");
const migrated = createDatabase({ kind: "postgres", url: database.url });
await migrated.migrate();
await migrated.close();
const fake = await startChild("bench/fake-model.ts");
const llm = { LLM_BASE_URL: fake.url, LLM_API_KEY: "sk-bench" };
// One web process each, so that a row's CPU is one process's: the entry routing REST (the
// default), and Next.js's router routing it (REST_ROUTING=nextjs), so the entry's gain is read
// in one run.
const served = { DATABASE_URL: database.url, SCHEDULER: "off", WEB_CONCURRENCY: "1", ...llm };
const service = await startServer(served);
const viaNext = await startServer({ ...served, REST_ROUTING: "nextjs" });
const baseline = await startChild("bench/baseline-process.ts", {
  BASELINE_DATABASE_URL: database.url,
  ...llm,
});
try {
  await createLoadAgent(service.url, { aid: "cpu", model });

  const chat = (name: string, url: string, pid: number, accept: string): Row => ({
    name,
    url: `${url}/cpu/chat?q=hello&chat_id=c-[<id>]`,
    pid,
    accept,
    requests: CHATS,
  });
  // The same chat asked as an OpenAI chat completion (issue 26: it may cost no more CPU than
  // GET /{aid}/chat). Its exchanges are kept in the caller's one `openai` thread.
  const completion = (name: string, stream: boolean): Row => ({
    name,
    url: `${service.url}/v1/chat/completions`,
    pid: service.pid,
    requests: CHATS,
    body: JSON.stringify({ model: "cpu", messages: [{ role: "user", content: "hello" }], stream }),
  });
  const rows: Row[] = [
    chat("chat JSON, service", service.url, service.pid, "application/json"),
    completion("completion JSON", false),
    chat("chat JSON, via Next.js", viaNext.url, viaNext.pid, "application/json"),
    chat("chat JSON, baseline", baseline.url, baseline.pid, "application/json"),
    chat("chat SSE, service", service.url, service.pid, "text/event-stream"),
    completion("completion SSE", true),
    chat("chat SSE, via Next.js", viaNext.url, viaNext.pid, "text/event-stream"),
    chat("chat SSE, baseline", baseline.url, baseline.pid, "text/event-stream"),
    {
      name: "Next.js's own 404",
      url: `${service.url}/cpu/no-such-path`,
      pid: service.pid,
      requests: FLOOR_REQUESTS,
    },
    {
      name: "GET /health/live",
      url: `${service.url}/health/live`,
      pid: service.pid,
      requests: FLOOR_REQUESTS,
    },
    {
      name: "GET /health/live, Next",
      url: `${viaNext.url}/health/live`,
      pid: viaNext.pid,
      requests: FLOOR_REQUESTS,
    },
  ];

  const measure = async (row: Row, requests: number): Promise<number> => {
    const before = await cpuMs(row.pid);
    const result = await autocannon({
      url: row.url,
      idReplacement: true,
      ...(row.body ? { method: "POST" as const, body: row.body } : {}),
      headers: {
        ...(row.accept ? { accept: row.accept } : {}),
        ...(row.body ? { "content-type": "application/json" } : {}),
      },
      connections: CONNECTIONS,
      amount: requests,
    });
    const spent = (await cpuMs(row.pid)) - before;
    const expected = row.url.includes("no-such-path") ? 404 : 200;
    const wrong = requests - (result.statusCodeStats?.[`${expected}`]?.count ?? 0);
    if (wrong > 0) throw new Error(`${row.name}: ${wrong} of ${requests} were not ${expected}`);
    return spent / requests;
  };

  for (const row of rows) await measure(row, row.requests);
  const spent = new Map<Row, number[]>(rows.map((row) => [row, []]));
  for (let round = 0; round < rounds; round++)
    for (const row of rows) spent.get(row)?.push(await measure(row, row.requests));

  console.info(
    `CPU ms per request, ${CONNECTIONS} connections, ${model}, ${rounds} rounds (median, then each round):`,
  );
  for (const row of rows) {
    const values = spent.get(row) ?? [];
    console.info(
      `${row.name.padEnd(22)} ${median(values).toFixed(2).padStart(6)}   ${values.map((v) => v.toFixed(2)).join(" ")}`,
    );
  }
} finally {
  await service.stop();
  await viaNext.stop();
  await baseline.stop();
  await fake.stop();
  await database.drop();
}
