/**
 * The echo chat row as an A/B of two builds in one run: this checkout's service, another built
 * checkout's (`ECHO_AGAINST=<directory>`), and the baseline, each measured in turn at 1, 16 and
 * 64 connections for `ECHO_AB_ROUNDS` rounds (default 3) of `ECHO_AB_SECONDS` (default 5), each
 * round starting with the next of the three, so that the machine's drift and the order fall on
 * all three alike; prints each round and the medians.
 *
 *   ECHO_AGAINST=/tmp/ab-old npx tsx bench/echo-ab.ts
 *
 * Each service has a throwaway database of its own (the two builds may differ in schema); the
 * baseline uses this checkout's. One web worker each, scheduler off, as the echo row's ×1.
 * Needs `next build` in both checkouts and PostgreSQL at BENCH_DATABASE_URL or TEST_DATABASE_URL.
 */
import autocannon from "autocannon";
import { TEST_ADMIN_KEY } from "../tests/helpers/server";
import { createThrowawayDatabase } from "../tests/helpers/throwaway-postgres";
import { median } from "./median";
import { startChild, startServerIn } from "./processes";

const serverUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
if (!serverUrl) throw new Error("Set BENCH_DATABASE_URL (or TEST_DATABASE_URL).");
const againstDir = process.env.ECHO_AGAINST;
if (!againstDir) throw new Error("Set ECHO_AGAINST to another built checkout.");
const ROUNDS = Number(process.env.ECHO_AB_ROUNDS ?? 3);
const SECONDS = Number(process.env.ECHO_AB_SECONDS ?? 5);
const CONNECTIONS = [1, 16, 64];

const databases = [
  await createThrowawayDatabase(serverUrl, "echo_ab"),
  await createThrowawayDatabase(serverUrl, "echo_ab"),
];
const env = (url: string) => ({
  DATABASE_URL: url,
  SCHEDULER: "off",
  LLM_MAX_CONCURRENCY: "1000",
  WEB_CONCURRENCY: "1",
});
const service = await startServerIn(process.cwd(), env(databases[0]?.url as string));
const against = await startServerIn(againstDir, env(databases[1]?.url as string));
if (!service || !against) throw new Error("a service did not start");
const baseline = await startChild("bench/baseline-process.ts", {
  BASELINE_DATABASE_URL: databases[0]?.url as string,
});
try {
  for (const base of [service.url, against.url]) {
    const created = await fetch(`${base}/agents`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({
        aid: "bench-chat",
        rate_limit_rpm: null,
        quota: {
          message_limit_total: null,
          message_limit_monthly: null,
          message_limit_daily: null,
        },
      }),
    });
    if (created.status !== 201) throw new Error(`agent not created: ${created.status}`);
  }
  const targets: [string, string][] = [
    ["service", `${service.url}/bench-chat/chat?q=hello&chat_id=bench`],
    ["against", `${against.url}/bench-chat/chat?q=hello&chat_id=bench`],
    ["baseline", `${baseline.url}/bench-chat/chat?q=hello&chat_id=bench-baseline`],
  ];
  const rps = new Map<string, number[]>();
  const measure = async (url: string, connections: number, seconds: number) => {
    const result = await autocannon({ url, connections, duration: seconds });
    if (result.non2xx + result.errors > 0)
      throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    return result.requests.average;
  };
  for (const [, url] of targets) await measure(url, 16, 3);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const connections of CONNECTIONS) {
      const line: string[] = [];
      // Each round starts one further along: whichever went first read higher in earlier runs
      // of bench/cpu-by-thread.ts, whichever build it was.
      const order = targets.map((_, i) => targets[(i + round - 1) % targets.length]);
      for (const [name, url] of order as [string, string][]) {
        const value = await measure(url, connections, SECONDS);
        const key = `${name} c=${connections}`;
        rps.set(key, [...(rps.get(key) ?? []), value]);
        line.push(`${name} ${value.toFixed(0)}`);
      }
      console.info(`round ${round} c=${connections}: ${line.join(", ")} req/s`);
    }
  }
  for (const connections of CONNECTIONS) {
    const of = (name: string) => median(rps.get(`${name} c=${connections}`) ?? []);
    const [s, a, b] = [of("service"), of("against"), of("baseline")];
    console.info(
      `median c=${connections}: service ${s.toFixed(0)} (${(s / b).toFixed(2)} of the baseline), against ${a.toFixed(0)} (${(a / b).toFixed(2)}), baseline ${b.toFixed(0)} req/s; service/against ${(s / a).toFixed(2)}`,
    );
  }
} finally {
  await Promise.all([service.stop(), against.stop(), baseline.stop()]);
  for (const database of databases) await database.drop();
}
