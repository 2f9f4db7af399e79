/**
 * What the service adds over a direct model call, against a gateway users would put in front of
 * a model instead, in the same run (BENCHMARKS.md cites it):
 *
 *   npx next build && npx tsx bench/gateway-rows.ts
 *
 * The fake model (bench/fake-model.ts, a process of its own) answers 200 tokens in 20 writes
 * over 40 ms. At one connection, interleaved in GATEWAY_ROUNDS rounds (default 3) of
 * BENCH_DURATION_S seconds (default 5) each: the fake called directly; through Portkey's
 * open-source gateway (`@portkey-ai/gateway`, a dev dependency, which keeps no keys, budgets or
 * logs); through the service as an OpenAI chat completion and as `GET /{aid}/chat`, with its
 * quota, budget, usage and request log on (one web process, PostgreSQL). Each overhead is a
 * p50 minus the direct call's p50 of the same round; medians of the rounds are printed.
 * JSON only: Portkey 1.15.2's relay of a stream fails (checked and said at every run).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import autocannon from "autocannon";
import { createDatabase } from "@/db/client";
import { accepts, freePort, startServer } from "../tests/helpers/server";
import { createThrowawayDatabase } from "../tests/helpers/throwaway-postgres";
import { fakeModelName } from "./fake-model-name";
import { createLoadAgent } from "./load-agent";
import { median } from "./median";
import { startChild } from "./processes";

const ROUNDS = Number(process.env.GATEWAY_ROUNDS || 3);
const SECONDS = Number(process.env.BENCH_DURATION_S || 5);
const MODEL = fakeModelName({ tokens: 200, writes: 20, latencyMs: 40 });

type Target = {
  name: string;
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
};

/** Latencies of the 2xx answers at one connection for `seconds`, and the failures. */
async function drive(target: Target, seconds: number) {
  const latencies: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.url,
        method: target.method,
        headers: target.headers,
        body: target.body,
        idReplacement: true,
        connections: 1,
        duration: seconds,
      },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on("response", (_client, status, _bytes, time) => {
      if (status >= 200 && status < 300) latencies.push(time);
    });
  });
  return { p50: median(latencies), failed: result.non2xx + result.errors + result.timeouts };
}

/** Portkey's gateway from node_modules, on a port of its own, without its console UI. */
async function startPortkey(): Promise<{ url: string; child: ChildProcess }> {
  const require = createRequire(import.meta.url);
  const entry = path.join(
    path.dirname(require.resolve("@portkey-ai/gateway/package.json")),
    "build",
    "start-server.js",
  );
  const port = await freePort();
  const child = spawn(process.execPath, [entry, `--port=${port}`, "--headless"], {
    stdio: "ignore",
  });
  for (let i = 0; i < 200 && !(await accepts(port)); i++)
    await new Promise((resolve) => setTimeout(resolve, 50));
  return { url: `http://127.0.0.1:${port}`, child };
}

export type GatewayRow = {
  model: string;
  rounds: number;
  direct_p50_ms: number;
  overhead_p50_ms: Record<string, number>;
  portkey_stream: string;
  failed: number;
};

export async function runGatewayBenchmarks(databaseUrl: string): Promise<GatewayRow> {
  const fake = await startChild("bench/fake-model.ts");
  const portkey = await startPortkey();
  const database = createDatabase({ kind: "postgres", url: databaseUrl });
  await database.migrate();
  await database.close();
  const service = await startServer({
    DATABASE_URL: databaseUrl,
    SCHEDULER: "off",
    WEB_CONCURRENCY: "1",
    LLM_BASE_URL: fake.url,
    LLM_API_KEY: "sk-bench",
  });
  try {
    await createLoadAgent(service.url, { aid: "gateway", model: MODEL, name: "Gateway" });
    const json = { "content-type": "application/json" };
    const ask = (model: string, stream = false) =>
      JSON.stringify({
        model,
        messages: [{ role: "user", content: "hello" }],
        ...(stream ? { stream: true } : {}),
      });
    const viaPortkey = {
      ...json,
      authorization: "Bearer sk-bench",
      "x-portkey-provider": "openai",
      "x-portkey-custom-host": fake.url,
    };
    const targets: Target[] = [
      {
        name: "direct",
        url: `${fake.url}/chat/completions`,
        method: "POST",
        headers: { ...json, authorization: "Bearer sk-bench" },
        body: ask(MODEL),
      },
      {
        name: "portkey",
        url: `${portkey.url}/v1/chat/completions`,
        method: "POST",
        headers: viaPortkey,
        body: ask(MODEL),
      },
      {
        name: "service completion",
        url: `${service.url}/v1/chat/completions`,
        method: "POST",
        headers: json,
        body: ask("gateway"),
      },
      {
        name: "service chat",
        url: `${service.url}/gateway/chat?q=hello&chat_id=g-[<id>]`,
        method: "GET",
        headers: { accept: "application/json" },
      },
    ];
    const streamed = await fetch(`${portkey.url}/v1/chat/completions`, {
      method: "POST",
      headers: viaPortkey,
      body: ask(MODEL, true),
    });
    const streamText = await streamed.text();
    const portkeyStream = streamText.includes("data: [DONE]")
      ? "relayed"
      : `fails: ${streamed.status} ${streamText.slice(0, 80)}`;
    for (const target of targets) await drive(target, 2);
    const overheads = new Map<string, number[]>();
    const directs: number[] = [];
    let failed = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // The order turns each round, so that no target always runs first.
      const order = targets.map((_, i) => targets[(i + round) % targets.length] as Target);
      const p50s = new Map<string, number>();
      for (const target of order) {
        const measured = await drive(target, SECONDS);
        failed += measured.failed;
        p50s.set(target.name, measured.p50);
      }
      const direct = p50s.get("direct") as number;
      directs.push(direct);
      for (const [name, p50] of p50s)
        if (name !== "direct") overheads.set(name, [...(overheads.get(name) ?? []), p50 - direct]);
    }
    const row: GatewayRow = {
      model: MODEL,
      rounds: ROUNDS,
      direct_p50_ms: median(directs),
      overhead_p50_ms: Object.fromEntries([...overheads].map(([name, all]) => [name, median(all)])),
      portkey_stream: portkeyStream,
      failed,
    };
    const rounds = (name: string) =>
      (overheads.get(name) ?? []).map((value) => value.toFixed(2)).join(", ");
    console.info(
      `gateway overhead at c=1, JSON, ${MODEL}: direct p50 ${row.direct_p50_ms.toFixed(2)} ms; ${[...overheads.keys()].map((name) => `${name} +${(row.overhead_p50_ms[name] as number).toFixed(2)} ms (rounds ${rounds(name)})`).join("; ")}; Portkey's stream relay ${portkeyStream}; ${failed} failed`,
    );
    return row;
  } finally {
    await service.stop();
    portkey.child.kill();
    await fake.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const serverUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
  if (!serverUrl) throw new Error("Set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to PostgreSQL.");
  const database = await createThrowawayDatabase(serverUrl, "gateway");
  try {
    await runGatewayBenchmarks(database.url);
  } finally {
    await database.drop();
  }
}
