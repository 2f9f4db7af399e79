/**
 * What one hop to another process costs on this machine, back to back and after the machine sat
 * idle for as long as a model call (BENCHMARKS.md cites it: at one connection every hop of a
 * chat comes after such a wait, and each costs several times what it costs under load):
 *
 *   npx tsx bench/idle-hops.ts [pause ms, default 40]
 *
 * Needs PostgreSQL at BENCH_DATABASE_URL or TEST_DATABASE_URL (a throwaway database is made and
 * dropped). Times, as p50 of 300 after 50 to warm up: a POST to the fake model
 * (bench/fake-model.ts, a process of its own, which answers at once) by `node:http` and by
 * `fetch`, a `SELECT 1` and a one-row UPDATE (its commit flushed to the WAL) by postgres.js;
 * each back to back, then with the pause before every call.
 */
import http from "node:http";
import postgres from "postgres";
import { createThrowawayDatabase } from "../tests/helpers/throwaway-postgres";
import { median as p50 } from "./median";
import { startChild } from "./processes";

const pauseMs = Number(process.argv[2] ?? 40);
const serverUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
if (!serverUrl)
  throw new Error("Set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a PostgreSQL server.");

const now = () => Number(process.hrtime.bigint()) / 1e6;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const database = await createThrowawayDatabase(serverUrl, "hops");
const fake = await startChild("bench/fake-model.ts");
const sql = postgres(database.url, { max: 1, onnotice: () => {} });
try {
  await sql`CREATE TABLE hop (id int PRIMARY KEY, n int NOT NULL)`;
  await sql`INSERT INTO hop VALUES (1, 0)`;
  const body = JSON.stringify({ model: "hop", messages: [{ role: "user", content: "hi" }] });
  const agent = new http.Agent({ keepAlive: true });
  const hops: [string, () => Promise<unknown>][] = [
    [
      "POST to the model, node:http",
      () =>
        new Promise((resolve, reject) => {
          const request = http.request(
            `${fake.url}/chat/completions`,
            { method: "POST", agent, headers: { "content-type": "application/json" } },
            (response) => response.resume().on("end", resolve),
          );
          request.on("error", reject).end(body);
        }),
    ],
    [
      "POST to the model, fetch",
      async () =>
        (
          await fetch(`${fake.url}/chat/completions`, {
            method: "POST",
            body,
            headers: { "content-type": "application/json" },
          })
        ).arrayBuffer(),
    ],
    ["SELECT 1, postgres.js", () => sql`SELECT 1`],
    ["UPDATE of one row (a commit)", () => sql`UPDATE hop SET n = n + 1 WHERE id = ${1}`],
  ];
  for (const [name, hop] of hops) {
    const times = { busy: [] as number[], idle: [] as number[] };
    for (const kind of ["busy", "idle"] as const) {
      for (let i = 0; i < 50; i++) await hop();
      for (let i = 0; i < 300; i++) {
        if (kind === "idle") await pause(pauseMs);
        const started = now();
        await hop();
        times[kind].push(now() - started);
      }
    }
    console.info(
      `${name.padEnd(30)} p50 back to back ${p50(times.busy).toFixed(3)} ms, after ${pauseMs} ms idle ${p50(times.idle).toFixed(3)} ms (${(p50(times.idle) / p50(times.busy)).toFixed(1)}×)`,
    );
  }
} finally {
  await sql.end();
  await fake.stop();
  await database.drop();
}
