/**
 * Where a JSON chat's time goes at one connection, through the service and through the baseline
 * (bench/baseline-process.ts), with a 40 ms model, as in the overhead row of `npm run bench`
 * (BENCHMARKS.md cites it):
 *
 *   npx next build && npx tsx bench/chat-phases.ts [chats]
 *
 * Needs PostgreSQL at BENCH_DATABASE_URL or TEST_DATABASE_URL (a throwaway database is made and
 * dropped). The fake model is an OpenAI-compatible JSON endpoint in this process, so that the
 * client and the model share one clock: each chat's time over the model splits into before the
 * model was asked (the request, the opening statement, the model's request written) and after it
 * answered (its reply read, the store statement, the answer written). Each is warmed up with
 * 2,000 chats at 16 connections, then asked `chats` times (default 400) one after another, in
 * two rounds; p50s are printed, calling the fake directly among them.
 *
 * CHAT_PHASES_AGAINST=<directory> adds a second service: another checkout of this repository, built
 * there, started from its own server entry on the same database, measured in the same rounds (an
 * A/B of two builds; CHAT_PHASES_ROUNDS, default 2, sets the rounds, and the median of the rounds
 * is printed).
 *
 * With CHAT_PHASES_PERF=1 (Linux perf, with syscall tracepoints), 60 more chats of each are
 * recorded (bench/perf-steps.ts) and each step is printed with its wall time, its time on the CPU
 * and the code that spent it, by origin: source files and packages when the build has source
 * maps (`NEXT_SERVER_SOURCE_MAPS=1 npx next build --no-mangling`), else "bundled".
 */
import { spawn } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import http from "node:http";
import autocannon from "autocannon";
import { createDatabase } from "../db/client";
import { SERVER_NODE_OPTIONS, startServer } from "../tests/helpers/server";
import { createThrowawayDatabase } from "../tests/helpers/throwaway-postgres";
import { createLoadAgent } from "./load-agent";
import { median as p50 } from "./median";
import { chatSteps, PERF_NODE_OPTIONS, PERF_RECORD_ARGS } from "./perf-steps";
import { startChild, startServerIn } from "./processes";

const chats = Number(process.argv[2] ?? 400);
const perf = process.env.CHAT_PHASES_PERF === "1";
const serverUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
if (!serverUrl)
  throw new Error("Set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a PostgreSQL server.");
const LATENCY_MS = 40;

const now = () => Number(process.hrtime.bigint()) / 1e6;
/** When the fake last had a whole request, and last finished an answer. */
const model = { in: 0, out: 0 };
const completion = JSON.stringify({
  id: "chatcmpl-phases",
  object: "chat.completion",
  created: 1,
  model: "phases",
  choices: [
    {
      index: 0,
      message: {
        role: "assistant",
        content: Array.from({ length: 200 }, (_, i) => `t${i} `).join(""),
      },
      finish_reason: "stop",
    },
  ],
  usage: { prompt_tokens: 20, completion_tokens: 200, total_tokens: 220 },
});
const fake = http.createServer((request, response) => {
  request.resume();
  request.on("end", () => {
    model.in = now();
    setTimeout(() => {
      response.writeHead(200, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(completion),
      });
      response.end(completion, () => {
        model.out = now();
      });
    }, LATENCY_MS);
  });
});
await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve));
const modelUrl = `http://127.0.0.1:${(fake.address() as { port: number }).port}/v1`;

const database = await createThrowawayDatabase(serverUrl, "phases");
const migrated = createDatabase({ kind: "postgres", url: database.url });
await migrated.migrate();
await migrated.close();
const llm = { LLM_BASE_URL: modelUrl, LLM_API_KEY: "sk-phases" };
const serviceEnv = { DATABASE_URL: database.url, SCHEDULER: "off", WEB_CONCURRENCY: "1", ...llm };
const service = await startServer({
  ...serviceEnv,
  ...(perf ? { NODE_OPTIONS: `${SERVER_NODE_OPTIONS} ${PERF_NODE_OPTIONS}` } : {}),
});
const baseline = await startChild("bench/baseline-process.ts", {
  BASELINE_DATABASE_URL: database.url,
  ...llm,
  ...(perf ? { NODE_OPTIONS: PERF_NODE_OPTIONS } : {}),
});
const against = await startServerIn(process.env.CHAT_PHASES_AGAINST, serviceEnv);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** One chat (or, `direct`, one call of the fake), timed against the fake's own clock. */
function ask(target: string, i: number) {
  const direct = target === "direct";
  const url = direct
    ? `${modelUrl}/chat/completions`
    : `${target}/phases/chat?q=hello&chat_id=p-${i}-${Math.random()}`;
  return new Promise<{ total: number; before: number; after: number }>((resolve, reject) => {
    const sent = now();
    const request = http.request(
      url,
      {
        agent,
        method: direct ? "POST" : "GET",
        headers: { accept: "application/json", "content-type": "application/json" },
      },
      (response) => {
        response.resume();
        response.on("end", () => {
          const got = now();
          if (response.statusCode !== 200) reject(new Error(`${url}: ${response.statusCode}`));
          resolve({ total: got - sent, before: model.in - sent, after: got - model.out });
        });
      },
    );
    request.on("error", reject);
    request.end(direct ? JSON.stringify({ model: "phases", messages: [] }) : undefined);
  });
}

const targets: [string, string, number | undefined][] = [
  ["direct", "direct", undefined],
  ["service", service.url, service.pid],
  ...(against ? [["against", against.url, against.pid] as [string, string, number]] : []),
  ["baseline", baseline.url, baseline.pid],
];

try {
  await createLoadAgent(service.url, { aid: "phases", model: "phases" });
  for (const [, url] of targets.slice(1))
    await autocannon({
      url: `${url}/phases/chat?q=hello&chat_id=w-[<id>]`,
      idReplacement: true,
      headers: { accept: "application/json" },
      connections: 16,
      amount: 2000,
    });
  const overs = new Map<string, number[]>();
  for (let round = 1; round <= Number(process.env.CHAT_PHASES_ROUNDS || 2); round++) {
    for (const [name, url] of targets) {
      for (let i = 0; i < 50; i++) await ask(url, i);
      const rows = [];
      for (let i = 0; i < chats; i++) rows.push(await ask(url, i));
      const over = p50(rows.map((r) => r.total)) - LATENCY_MS;
      overs.set(name, [...(overs.get(name) ?? []), over]);
      console.info(
        `round ${round} ${name.padEnd(8)} p50 over the model ${over.toFixed(2)} ms: before it ${p50(rows.map((r) => r.before)).toFixed(2)}, after it ${p50(rows.map((r) => r.after)).toFixed(2)}`,
      );
    }
  }
  for (const [name, rounds] of overs)
    console.info(
      `${name.padEnd(8)} median of the rounds ${p50(rounds).toFixed(2)} ms over the model`,
    );
  if (perf) {
    for (const [name, url, pid] of targets.slice(1)) {
      const file = `/tmp/chat-phases-${name}.perf`;
      const recorder = spawn("perf", [...PERF_RECORD_ARGS, "-o", file, "-p", String(pid)], {
        stdio: "ignore",
      });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      for (let i = 0; i < 60; i++) await ask(url, i);
      recorder.kill("SIGINT");
      await new Promise((resolve) => recorder.once("exit", resolve));
      const { chats: whole, steps } = chatSteps(file);
      console.info(`\n${name}: ${whole} whole chats recorded`);
      for (const step of steps) {
        const origins = step.origins
          .slice(0, 6)
          .map(([origin, ms]) => `${origin} ${ms.toFixed(3)}`)
          .join("; ");
        console.info(
          `  ${step.name.padEnd(50)} ${step.wallMs.toFixed(3)} ms, on the CPU ${step.cpuMs.toFixed(3)}: ${origins}`,
        );
      }
    }
  }
} finally {
  await service.stop();
  await against?.stop();
  await baseline.stop();
  await database.drop();
  fake.close();
  // V8 writes a log beside perf's symbol map (isolate-<address>-<pid>-v8.log): not kept.
  if (perf)
    for (const file of readdirSync("."))
      if ([service.pid, against?.pid, baseline.pid].some((pid) => file.endsWith(`-${pid}-v8.log`)))
        rmSync(file);
}
