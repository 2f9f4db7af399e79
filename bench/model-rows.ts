/**
 * The model rows of `npm run bench`: chat against a fake OpenAI-compatible endpoint
 * (bench/fake-model.ts, a process of its own), through the service and through the baseline
 * (bench/baseline-process.ts, a process of its own too), in the same run:
 *
 * - overhead at 1 connection: each one's p50 minus the p50 of calling the fake directly with
 *   the same request body, JSON and SSE;
 * - saturation at 64 and 256 connections, model latency 1 s, the service with one web worker
 *   and with two (WEB_CONCURRENCY=2): chats/s against the ideal (connections / latency),
 *   p50/p99 of the 2xx answers, status counts, peak resident memory (all processes), and where
 *   the CPU went (service, PostgreSQL, the load generator, the fake model);
 * - CPU per streamed token: process CPU time per chat with 20 and with 200 tokens a chat (both
 *   in 20 network writes), and the slope between them.
 * - Chat against its adapters: the service's CPU time per chat, the same question to the same
 *   agent through GET /{aid}/chat and each other way in (bench/adapter-rows.ts), JSON and SSE,
 *   in rounds (BENCH_MODEL_ADAPTER_ROUNDS, 20, of BENCH_MODEL_ADAPTER_CHATS, 64).
 *
 * The service runs with LLM_BASE_URL, LLM_API_KEY and SCHEDULER=off and otherwise its
 * defaults (LLM_MAX_CONCURRENCY included). Every chat asks on a thread of its own (autocannon
 * puts a fresh id in `chat_id`), so every model call has the same body: system prompt and
 * question, no history (the history is still read), and no two chats wait on one thread row.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import autocannon from "autocannon";
import { createDatabase } from "@/db/client";
import { type RunningServer, startServer } from "../tests/helpers/server";
import {
  ADAPTER_WAYS,
  type AdapterWay,
  a2aThrough,
  adapterRow,
  completionThrough,
  mcpThrough,
  responseThrough,
} from "./adapter-rows";
import type { FakeModelStats } from "./fake-model";
import { type FakeModel, fakeModelName } from "./fake-model-name";
import { createLoadAgent } from "./load-agent";
import {
  type BenchChild,
  cpuMs,
  cpuSpent,
  cpuSplit,
  startChild,
  watchPeakResident,
} from "./processes";

const env = (name: string, fallback: number) => Number(process.env[name] || fallback);

/** The knobs, all overridable by environment variables. */
export function modelSettings(durationS: number) {
  return {
    /** Seconds per overhead measurement (1 connection): BENCH_DURATION_S, as the echo rows. */
    overhead_duration_s: durationS,
    /** Seconds per saturation measurement. */
    saturation_duration_s: env("BENCH_MODEL_DURATION_S", 10),
    overhead_latency_ms: env("BENCH_MODEL_OVERHEAD_LATENCY_MS", 40),
    saturation_latency_ms: env("BENCH_MODEL_LATENCY_MS", 1000),
    saturation_connections: (process.env.BENCH_MODEL_CONNECTIONS || "64,256")
      .split(",")
      .map(Number),
    tokens: 200,
    writes: 20,
    /** The CPU rows: SSE at this concurrency (under the default 32 model slots) and latency. */
    cpu_connections: env("BENCH_MODEL_CPU_CONNECTIONS", 16),
    cpu_latency_ms: env("BENCH_MODEL_CPU_LATENCY_MS", 250),
    /** Chats per CPU measurement; default: about BENCH_MODEL_DURATION_S seconds' worth. */
    cpu_chats: env(
      "BENCH_MODEL_CPU_CHATS",
      Math.round(
        (env("BENCH_MODEL_CPU_CONNECTIONS", 16) * env("BENCH_MODEL_DURATION_S", 10) * 1000) /
          env("BENCH_MODEL_CPU_LATENCY_MS", 250),
      ),
    ),
    cpu_tokens: [20, 200] as const,
    /**
     * Rounds of the chat against its adapters (each way measured once a round), and chats a
     * way a round: many short rounds, so that the machine's drift falls alike on the ways
     * compared in each.
     */
    adapter_rounds: env("BENCH_MODEL_ADAPTER_ROUNDS", 20),
    adapter_chats: env("BENCH_MODEL_ADAPTER_CHATS", 64),
  };
}

type Format = "json" | "sse";

const ACCEPT: Record<Format, string> = { json: "application/json", sse: "text/event-stream" };

/** What a chat's body must hold to count as a whole answer. */
const COMPLETE: Record<Format, (body: string) => boolean> = {
  json: (body) => body.includes('"reply":'),
  sse: (body) => body.includes("event: done"),
};

/** The same for the fake answering directly. */
const COMPLETE_DIRECT: Record<Format, (body: string) => boolean> = {
  json: (body) => body.includes('"choices":'),
  sse: (body) => body.includes("data: [DONE]"),
};

export type ModelMeasure = {
  /** The run's length (a timed run ends with the requests still open cut off). */
  seconds: number;
  /** Responses received, whatever their status. */
  responses: number;
  /** 2xx answers that were complete (a whole JSON reply; a stream that reached `event: done`). */
  chats: number;
  /** Complete chats per second, from the start to the last 2xx answer. */
  chats_per_s: number;
  status_2xx: number;
  status_503: number;
  status_other_non2xx: number;
  /** 2xx answers whose body was not complete. */
  incomplete_2xx: number;
  /** Connection errors, timeouts included. */
  errors: number;
  timeouts: number;
  /** Latency of the 2xx answers (from the request to the end of the body), in ms. */
  p50: number;
  p99: number;
};

type Drive = {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  /** A body, or one made for each request (autocannon sizes each). */
  body?: string | (() => string);
  /** Replaces `[<id>]` in the URL with a fresh id per request. */
  idReplacement?: boolean;
  complete: (body: string) => boolean;
  connections: number;
  /** A duration in seconds, or a number of requests (then every request is answered). */
  duration?: number;
  amount?: number;
};

/** One autocannon run, with the 2xx latencies kept exactly (autocannon's histogram has 1 ms steps). */
async function drive(options: Drive): Promise<ModelMeasure> {
  const latencies: number[] = [];
  const startedAt = performance.now();
  let lastAnswerAt = startedAt;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        method: options.method ?? "GET",
        headers: options.headers ?? {},
        ...(typeof options.body === "function"
          ? {
              requests: [
                {
                  setupRequest: (request) => ({
                    ...request,
                    body: (options.body as () => string)(),
                  }),
                },
              ],
            }
          : { body: options.body }),
        idReplacement: options.idReplacement,
        connections: options.connections,
        ...(options.amount === undefined
          ? { duration: options.duration ?? 5 }
          : { amount: options.amount }),
        // A chat that does not finish in 30 s counts as a timeout (the model latency is ≤ 1 s).
        timeout: 30,
        verifyBody: (body) => options.complete(String(body ?? "")),
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    instance.on("response", (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) {
        latencies.push(responseTime);
        lastAnswerAt = performance.now();
      }
    });
  });
  const status503 = result.statusCodeStats?.["503"]?.count ?? 0;
  // Every non-2xx body fails the check as well, so the 2xx ones that failed are the rest.
  const incomplete = Math.max(0, result.mismatches - result.non2xx);
  const chats = result["2xx"] - incomplete;
  latencies.sort((a, b) => a - b);
  const percentile = (q: number) =>
    latencies.length === 0
      ? Number.NaN
      : (latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)] as number);
  return {
    seconds: result.duration,
    responses: result["2xx"] + result.non2xx,
    chats,
    // Over the time to the last answer: the chats cut off at the end of a timed run are not
    // counted, so their seconds are not either (with a 1 s model and 10 s, the difference is
    // about a tenth: every connection fits 9 whole chats, not 10).
    chats_per_s: chats === 0 ? 0 : chats / ((lastAnswerAt - startedAt) / 1000),
    status_2xx: result["2xx"],
    status_503: status503,
    status_other_non2xx: result.non2xx - status503,
    incomplete_2xx: incomplete,
    errors: result.errors,
    timeouts: result.timeouts,
    p50: percentile(0.5),
    p99: percentile(0.99),
  };
}

const fmt = (n: number, digits = 0) =>
  Number.isNaN(n)
    ? "-"
    : n.toLocaleString("en", { maximumFractionDigits: digits, minimumFractionDigits: digits });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runModelBenchmarks(databaseUrl: string, durationS: number) {
  const settings = modelSettings(durationS);
  const database = createDatabase({ kind: "postgres", url: databaseUrl });
  await database.migrate();
  await database.close();

  const fake = await startChild("bench/fake-model.ts");
  const llmBaseUrl = fake.url;
  const startService = (workers = 1, env: Record<string, string> = {}) =>
    startServer({
      DATABASE_URL: databaseUrl,
      LLM_BASE_URL: llmBaseUrl,
      LLM_API_KEY: "sk-bench",
      SCHEDULER: "off",
      WEB_CONCURRENCY: String(workers),
      // The fake model is on loopback: an agent's own endpoint there must be listed.
      MODEL_ALLOWED_HOSTS: "127.0.0.1",
      ...env,
    });
  let service = await startService();
  const baseline = await startChild("bench/baseline-process.ts", {
    BASELINE_DATABASE_URL: databaseUrl,
    LLM_BASE_URL: llmBaseUrl,
    LLM_API_KEY: "sk-bench",
  });
  try {
    return await measureModelRows({
      settings,
      fake,
      llmBaseUrl,
      service: () => service,
      restartService: async (workers = 1, env: Record<string, string> = {}) => {
        await service.stop();
        service = await startService(workers, env);
        return service;
      },
      baseline,
    });
  } finally {
    await service.stop();
    await baseline.stop();
    await fake.stop();
  }
}

async function measureModelRows({
  settings,
  fake,
  llmBaseUrl,
  service: currentService,
  restartService,
  baseline,
}: {
  settings: ReturnType<typeof modelSettings>;
  fake: BenchChild;
  llmBaseUrl: string;
  service: () => RunningServer;
  /** A fresh service, with this many web workers (default 1) and these settings. */
  restartService: (workers?: number, env?: Record<string, string>) => Promise<RunningServer>;
  baseline: BenchChild;
}) {
  const { tokens, writes } = settings;
  const agentName = "Bench model";
  const agentPrompt = "Answer briefly.";
  const question = "hello";

  /** One agent per fake model; the baseline reads the same row. */
  const agentFor = async (model: FakeModel) => {
    const name = fakeModelName(model);
    const aid = `bench-${name}`;
    await createLoadAgent(currentService().url, {
      aid,
      name: agentName,
      prompt: agentPrompt,
      model: name,
    });
    return { aid, name };
  };

  /** A chat through the service or the baseline, each on a thread of its own. */
  const chatThrough = (base: string, aid: string, format: Format) => ({
    url: `${base}/${aid}/chat?q=${question}&chat_id=b-[<id>]`,
    headers: { accept: ACCEPT[format] },
    idReplacement: true,
    complete: COMPLETE[format],
  });

  /** The body the service and the baseline send upstream for such a chat. */
  const upstreamBody = (model: string, format: Format) =>
    JSON.stringify({
      model,
      messages: [
        { role: "system", content: `You are ${agentName}.\n\n${agentPrompt}` },
        { role: "user", content: question },
      ],
      max_tokens: 1024,
      ...(format === "sse" ? { stream: true, stream_options: { include_usage: true } } : {}),
    });

  const direct = (model: string, format: Format) => ({
    url: `${llmBaseUrl}/chat/completions`,
    method: "POST" as const,
    headers: {
      authorization: "Bearer sk-bench",
      "content-type": "application/json",
      accept: ACCEPT[format],
    },
    body: upstreamBody(model, format),
    complete: COMPLETE_DIRECT[format],
  });

  const fakeStats = () => fake.ask<FakeModelStats>({ type: "stats" });
  /** Waits until the fake has no request open (calls cut at the end of a run wind down). */
  const drained = async () => {
    const deadline = Date.now() + 10_000;
    while ((await fakeStats()).inFlight > 0 && Date.now() < deadline) await sleep(100);
  };

  const overheadModel = { tokens, writes, latencyMs: settings.overhead_latency_ms };
  const saturationModel = { tokens, writes, latencyMs: settings.saturation_latency_ms };
  const overheadAgent = await agentFor(overheadModel);
  const saturationAgent = await agentFor(saturationModel);
  const cpuAgents = await Promise.all(
    settings.cpu_tokens.map((cpuTokens) =>
      agentFor({ tokens: cpuTokens, writes, latencyMs: settings.cpu_latency_ms }),
    ),
  );

  /**
   * A few hundred chats of each kind at a few connections, a fixed number so that none is cut
   * off at the end (see `slotsLeftBusy`).
   */
  const warmUp = async (base: string) => {
    for (const format of ["json", "sse"] as const) {
      await drive({ ...chatThrough(base, overheadAgent.aid, format), connections: 8, amount: 200 });
    }
    await drained();
  };

  /**
   * The service's model slots still taken after a run has ended and the fake has no call open:
   * as many JSON chats at once as there were connections, each holding its slot for the 1 s of
   * the saturation model; the 503s among them name the capacity. Null when none was refused
   * (more slots free than chats asked). A slot left taken is never given back (nor its quota).
   */
  const slotsLeftBusy = async (base: string, connections: number) => {
    const answers = await Promise.all(
      Array.from({ length: connections }, async (_, i) => {
        const response = await fetch(
          `${base}/${saturationAgent.aid}/chat?q=${question}&chat_id=slots-${Date.now()}-${i}`,
          { headers: { accept: "application/json" } },
        );
        return { status: response.status, body: await response.text() };
      }),
    );
    await drained();
    const refused = answers.find((answer) => answer.status === 503);
    const capacity = Number(/All (\d+) model slots/.exec(refused?.body ?? "")?.[1] ?? Number.NaN);
    if (Number.isNaN(capacity)) return null;
    return capacity - answers.filter((answer) => answer.status === 200).length;
  };

  await warmUp(currentService().url);
  await warmUp(baseline.url);

  // 1. Overhead at 1 connection: p50 through each minus p50 of the fake called directly.
  const overhead = [];
  for (const format of ["json", "sse"] as const) {
    const run = (target: Omit<Drive, "connections">) =>
      drive({ ...target, connections: 1, duration: settings.overhead_duration_s });
    const d = await run(direct(overheadAgent.name, format));
    const s = await run(chatThrough(currentService().url, overheadAgent.aid, format));
    const b = await run(chatThrough(baseline.url, overheadAgent.aid, format));
    await drained();
    const row = {
      format,
      model: overheadAgent.name,
      connections: 1,
      direct: d,
      service: s,
      baseline: b,
      service_overhead_p50_ms: s.p50 - d.p50,
      baseline_overhead_p50_ms: b.p50 - d.p50,
    };
    overhead.push(row);
    const label = `model ${format === "json" ? "JSON" : "SSE"} overhead, ${overheadAgent.name}`;
    console.info(
      `${label.padEnd(50)} c= 1  direct p50 ${fmt(d.p50, 1)} p99 ${fmt(d.p99, 1)} ms | service p50 ${fmt(s.p50, 1)} p99 ${fmt(s.p99, 1)} ms: +${fmt(row.service_overhead_p50_ms, 1)} ms | baseline p50 ${fmt(b.p50, 1)} p99 ${fmt(b.p99, 1)} ms: +${fmt(row.baseline_overhead_p50_ms, 1)} ms${failures(d, s, b)}`,
    );
  }

  // 2. Saturation: many connections, model latency 1 s.
  const saturation = [];
  for (const connections of settings.saturation_connections) {
    for (const format of ["json", "sse"] as const) {
      const ideal = connections / (settings.saturation_latency_ms / 1000);
      const measureOne = async (base: string, pid: number, isService: boolean) => {
        await fake.ask({ type: "reset" });
        const memory = watchPeakResident(pid);
        const splitBefore = await cpuSplit(pid, fake.pid);
        const result = await drive({
          ...chatThrough(base, saturationAgent.aid, format),
          connections,
          duration: settings.saturation_duration_s,
        });
        const split = cpuSpent(splitBefore, await cpuSplit(pid, fake.pid));
        const cpu = split.service;
        const peak = await memory.stop();
        const model = await fakeStats();
        await drained();
        return {
          ...result,
          slots_left_busy: isService ? await slotsLeftBusy(base, connections) : null,
          ideal_ratio: result.chats_per_s / ideal,
          rss_max_mib: peak.rss,
          pss_max_mib: peak.pss,
          cpu_ms: cpu,
          cpu_cores: cpu / (result.seconds * 1000),
          cpu_ms_per_chat: result.chats === 0 ? Number.NaN : cpu / result.chats,
          /** Cores each part used over the run: service, PostgreSQL, load generator, model. */
          cpu_split_cores: Object.fromEntries(
            Object.entries(split).map(([part, ms]) => [part, ms / (result.seconds * 1000)]),
          ),
          model_max_in_flight: model.maxInFlight,
          model_calls: model.served,
        };
      };
      // A fresh service for each: slots left taken by one run (see slotsLeftBusy) would
      // otherwise lower the next one's capacity. One web worker, then two (npm start's default
      // on this 2-core machine), then the baseline.
      const one = await restartService(1);
      await warmUp(one.url);
      const s = await measureOne(one.url, one.pid, true);
      const two = await restartService(2);
      await warmUp(two.url);
      const s2 = await measureOne(two.url, two.pid, true);
      const b = await measureOne(baseline.url, baseline.pid, false);
      saturation.push({
        format,
        model: saturationAgent.name,
        connections,
        ideal_chats_per_s: ideal,
        service: s,
        service_2_workers: s2,
        baseline: b,
        chats_ratio: s.chats_per_s / b.chats_per_s,
        chats_ratio_2_workers: s2.chats_per_s / b.chats_per_s,
        /** Chats per second with two web workers over one. */
        scaling: s2.chats_per_s / s.chats_per_s,
      });
      const label = `model ${format === "json" ? "JSON" : "SSE"} saturation, ${saturationAgent.name}`;
      const line = (who: string, m: typeof s) =>
        `${who.padEnd(10)} ${fmt(m.chats_per_s, 1).padStart(6)} chats/s (${fmt(m.ideal_ratio, 2)} of ideal ${fmt(ideal)}) p50 ${fmt(m.p50)} p99 ${fmt(m.p99)} ms; 2xx ${m.status_2xx}, 503 ${m.status_503}, other non-2xx ${m.status_other_non2xx}, errors ${m.errors} (timeouts ${m.timeouts}), incomplete ${m.incomplete_2xx}; RSS max ${fmt(m.rss_max_mib)} MiB (PSS ${fmt(m.pss_max_mib)}); CPU ${fmt(m.cpu_cores, 2)} cores, ${fmt(m.cpu_ms_per_chat, 2)} ms/chat (split: ${Object.entries(
          m.cpu_split_cores,
        )
          .map(([part, cores]) => `${part} ${fmt(cores, 2)}`)
          .join(
            ", ",
          )}); model calls at once max ${m.model_max_in_flight}${m.slots_left_busy === null ? "" : `; slots left busy after ${m.slots_left_busy}`}`;
      console.info(
        `${label.padEnd(50)} c=${String(connections).padStart(3)}  ${line("service ×1", s)}`,
      );
      console.info(`${"".padEnd(50)}        ${line("service ×2", s2)}`);
      console.info(`${"".padEnd(50)}        ${line("baseline", b)}`);
      console.info(
        `${"".padEnd(50)}        two workers over one: ${fmt(s2.chats_per_s / s.chats_per_s, 2)}×`,
      );
    }
  }

  // 3. CPU per streamed token: the same number of SSE chats with 20 and with 200 tokens each
  // (both in 20 writes), every one answered (a fixed amount, so none is cut at the end). Each
  // kind is measured twice, in the order 20, 200, 200, 20, half the chats each time, so that
  // drift over the section (garbage left by earlier runs, other load) falls on both alike.
  const cpuRun = async (base: string, pid: number, aid: string) => {
    const before = await cpuMs(pid);
    const result = await drive({
      ...chatThrough(base, aid, "sse"),
      connections: settings.cpu_connections,
      amount: Math.ceil(settings.cpu_chats / 2),
    });
    const cpu = (await cpuMs(pid)) - before;
    await drained();
    return { ...result, cpu_ms: cpu };
  };
  const cpuOf = async (base: string, pid: number) => {
    const [fewAgent, manyAgent] = cpuAgents;
    if (!fewAgent || !manyAgent) throw new Error("two CPU agents expected");
    const few1 = await cpuRun(base, pid, fewAgent.aid);
    const many1 = await cpuRun(base, pid, manyAgent.aid);
    const many2 = await cpuRun(base, pid, manyAgent.aid);
    const few2 = await cpuRun(base, pid, fewAgent.aid);
    const both = (first: typeof few1, second: typeof few1) => ({
      chats: first.chats + second.chats,
      cpu_ms: first.cpu_ms + second.cpu_ms,
      cpu_ms_per_chat: (first.cpu_ms + second.cpu_ms) / (first.chats + second.chats),
      failures: failureCount(first) + failureCount(second),
      runs: [first, second],
    });
    const few = both(few1, few2);
    const many = both(many1, many2);
    const [fewTokens, manyTokens] = settings.cpu_tokens;
    return {
      [`tokens_${fewTokens}`]: few,
      [`tokens_${manyTokens}`]: many,
      cpu_ms_per_chat: { [fewTokens]: few.cpu_ms_per_chat, [manyTokens]: many.cpu_ms_per_chat },
      cpu_us_per_token:
        ((many.cpu_ms_per_chat - few.cpu_ms_per_chat) * 1000) / (manyTokens - fewTokens),
      failures: few.failures + many.failures,
    };
  };
  const service = await restartService();
  await warmUp(service.url);
  const cpuService = await cpuOf(service.url, service.pid);
  const cpuBaseline = await cpuOf(baseline.url, baseline.pid);
  const cpu = {
    format: "sse",
    connections: settings.cpu_connections,
    latency_ms: settings.cpu_latency_ms,
    writes,
    chats_per_token_count: settings.cpu_chats,
    models: cpuAgents.map((agent) => agent.name),
    service: cpuService,
    baseline: cpuBaseline,
  };
  const [fewTokens, manyTokens] = settings.cpu_tokens;
  const cpuLine = (m: typeof cpuService) =>
    `${fmt(m.cpu_ms_per_chat[fewTokens] as number, 2)} ms/chat at ${fewTokens} tokens, ${fmt(m.cpu_ms_per_chat[manyTokens] as number, 2)} at ${manyTokens}: ${fmt(m.cpu_us_per_token, 1)} µs/token${m.failures > 0 ? ` [failed chats ${m.failures}]` : ""}`;
  console.info(
    `${`model SSE CPU per token, ${cpuAgents.map((agent) => agent.name).join(" vs ")}`.padEnd(50)} c=${String(settings.cpu_connections).padStart(3)}  service ${cpuLine(cpuService)} | baseline ${cpuLine(cpuBaseline)} (${fmt(settings.cpu_chats)} chats each)`,
  );

  // 4. The same chat asked the other ways (bench/adapter-rows.ts): the service's CPU a chat
  // through each, in rounds whose order rotates, so that no way is always measured at the same
  // place in a round. A way's ratio is the median of its rounds' ratios to the chat of the same
  // round: a single measurement a way moved more from run to run than the targets allow.
  const manyAgent = cpuAgents[1] as { aid: string; name: string };
  // The same agent with one model endpoint of its own (issue 48), on the same fake model: what
  // reading the endpoint's circuit and its sealed key costs a chat.
  const endpointAid = `${manyAgent.aid}-endpoint`;
  await createLoadAgent(service.url, {
    aid: endpointAid,
    name: agentName,
    prompt: agentPrompt,
    model: manyAgent.name,
    model_endpoints: [
      { name: "fake", base_url: llmBaseUrl, model: manyAgent.name, api_key: "sk-bench" },
    ],
  });
  const cpuOfTarget = async (target: Omit<Drive, "connections">) => {
    const before = await cpuMs(service.pid);
    const result = await drive({
      ...target,
      connections: settings.cpu_connections,
      amount: settings.adapter_chats,
    });
    const cpuSpentMs = (await cpuMs(service.pid)) - before;
    await drained();
    return { chats: result.chats, cpu_ms: cpuSpentMs, failures: failureCount(result) };
  };
  const openAi = [];
  for (const format of ["json", "sse"] as const) {
    const json = format === "json";
    // MCP and A2A's SendMessage answer JSON only; only a streamed response is recorded.
    const targets: Record<AdapterWay, Omit<Drive, "connections"> | undefined> = {
      chat: chatThrough(service.url, manyAgent.aid, format),
      completion: completionThrough(service.url, manyAgent.aid, question, format),
      response: responseThrough(service.url, manyAgent.aid, question, format),
      own_endpoint: chatThrough(service.url, endpointAid, format),
      mcp: json ? mcpThrough(service.url, manyAgent.aid, question) : undefined,
      a2a: json ? a2aThrough(service.url, manyAgent.aid, question) : undefined,
      recorded_response: json
        ? undefined
        : responseThrough(service.url, manyAgent.aid, question, "sse", true),
    };
    const ways = ADAPTER_WAYS.flatMap((way) => {
      const target = targets[way];
      return target ? [{ way, target }] : [];
    });
    // Each way's code warmed up first, unmeasured: the chat's had run thousands of times by
    // then and the others' none, and a round's first measurement after the idle baseline rows
    // read far above the rest.
    for (const { target } of ways) {
      await drive({ ...target, connections: settings.cpu_connections, amount: 160 });
      await drained();
    }
    const rounds: Partial<Record<AdapterWay, number>>[] = [];
    let failed = 0;
    for (let round = 0; round < settings.adapter_rounds; round++) {
      const measured: Partial<Record<AdapterWay, number>> = {};
      for (let i = 0; i < ways.length; i++) {
        const { way, target } = ways[(i + round) % ways.length] as (typeof ways)[number];
        const result = await cpuOfTarget(target);
        measured[way] = result.cpu_ms / result.chats;
        failed += result.failures;
      }
      rounds.push(measured);
    }
    const row = adapterRow(format, manyAgent.name, settings, rounds, failed);
    openAi.push(row);
    console.info(
      `${`model ${json ? "JSON" : "SSE"} CPU, chat vs adapters, ${manyAgent.name}`.padEnd(50)} c=${String(settings.cpu_connections).padStart(3)}  ${row.line}${failed > 0 ? ` [failed ${failed}]` : ""}`,
    );
  }

  const alternation = {
    restartService,
    warmUp,
    cpuOf: async (base: string, pid: number, format: Format) => {
      const before = await cpuMs(pid);
      const result = await drive({
        ...chatThrough(base, manyAgent.aid, format),
        connections: settings.cpu_connections,
        amount: Math.ceil(settings.cpu_chats / 2),
      });
      const cpu = (await cpuMs(pid)) - before;
      await drained();
      return { chats: result.chats, cpu_ms: cpu, failures: failureCount(result) };
    },
    connections: settings.cpu_connections,
    model: manyAgent.name,
  };
  const tracing = await measureTracing(alternation);
  const recording = await measureRecording(alternation);

  return { settings, overhead, saturation, cpu, openai: openAi, tracing, recording };
}

const failureCount = (m: ModelMeasure) =>
  m.status_503 + m.status_other_non2xx + m.incomplete_2xx + m.errors;

function failures(...measures: ModelMeasure[]): string {
  const counts = measures.map(failureCount);
  return counts.some((n) => n > 0) ? `  [failed direct/service/baseline ${counts.join("/")}]` : "";
}

type CpuOf = (
  base: string,
  pid: number,
  format: Format,
) => Promise<{ chats: number; cpu_ms: number; failures: number }>;

type Alternation = {
  restartService: (workers?: number, env?: Record<string, string>) => Promise<RunningServer>;
  warmUp: (base: string) => Promise<void>;
  cpuOf: CpuOf;
};

/**
 * The same chats on services started with two settings, alternated off, on, off, on, each fresh
 * and warmed up, so that drift falls on both alike: CPU a chat of each, by format.
 */
async function alternate(
  { restartService, warmUp, cpuOf }: Alternation,
  settings: { off: Record<string, string>; on: Record<string, string> },
  formats: readonly Format[],
) {
  const sums = { off: new Map<Format, number[]>(), on: new Map<Format, number[]>() };
  let failures = 0;
  try {
    for (let round = 0; round < 2; round++) {
      for (const mode of ["off", "on"] as const) {
        const service = await restartService(1, settings[mode]);
        await warmUp(service.url);
        for (const format of formats) {
          const m = await cpuOf(service.url, service.pid, format);
          const [cpu = 0, chats = 0] = sums[mode].get(format) ?? [];
          sums[mode].set(format, [cpu + m.cpu_ms, chats + m.chats]);
          failures += m.failures;
        }
      }
    }
  } finally {
    await restartService();
  }
  const per = (mode: "off" | "on", format: Format) => {
    const [cpu = 0, chats = 1] = sums[mode].get(format) ?? [];
    return cpu / chats;
  };
  return { per, failures };
}

/**
 * 5. OpenTelemetry (issue 49): the same chats with tracing off and on, every span exported over
 * OTLP/HTTP (protobuf) to a collector stand-in on loopback that reads and drops them.
 */
async function measureTracing({
  connections,
  model,
  ...alternation
}: Alternation & { connections: number; model: string }) {
  let exported = 0;
  const collector = createServer((req, res) => {
    req.on("data", (chunk: Buffer) => {
      exported += chunk.length;
    });
    req.on("end", () => res.writeHead(200, { "content-type": "application/x-protobuf" }).end());
  });
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
  const { port } = collector.address() as AddressInfo;
  const on = {
    OTEL_TRACES_EXPORTER: "otlp",
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    OTEL_BSP_SCHEDULE_DELAY: "1000",
  };
  const { per, failures } = await alternate(alternation, { off: {}, on }, ["json", "sse"]).finally(
    () => new Promise<void>((resolve) => collector.close(() => resolve())),
  );
  const row = {
    model,
    connections,
    off_cpu_ms_per_chat: { json: per("off", "json"), sse: per("off", "sse") },
    on_cpu_ms_per_chat: { json: per("on", "json"), sse: per("on", "sse") },
    exported_bytes: exported,
    failures,
  };
  console.info(
    `${`model CPU, tracing off vs on (OTLP protobuf), ${model}`.padEnd(50)} c=${String(connections).padStart(3)}  JSON ${fmt(row.off_cpu_ms_per_chat.json, 2)} → ${fmt(row.on_cpu_ms_per_chat.json, 2)} ms/chat (${fmt(row.on_cpu_ms_per_chat.json / row.off_cpu_ms_per_chat.json, 2)}×) | SSE ${fmt(row.off_cpu_ms_per_chat.sse, 2)} → ${fmt(row.on_cpu_ms_per_chat.sse, 2)} ms/chat (${fmt(row.on_cpu_ms_per_chat.sse / row.off_cpu_ms_per_chat.sse, 2)}×); ${fmt(exported / 1024)} KiB exported${failures > 0 ? ` [failed ${failures}]` : ""}`,
  );
  return row;
}

/**
 * 6. Resumable streams (issue 48): streamed chats with recording off (CHAT_RESUME_S=0) and on
 * (the default): each stream that ends is written once, in a batch, for a client that left with
 * its last events unread. Its clients stay, as nearly all do.
 */
async function measureRecording({
  connections,
  model,
  ...alternation
}: Alternation & { connections: number; model: string }) {
  const { per, failures } = await alternate(alternation, { off: { CHAT_RESUME_S: "0" }, on: {} }, [
    "sse",
  ]);
  const row = {
    model,
    connections,
    off_cpu_ms_per_chat: per("off", "sse"),
    on_cpu_ms_per_chat: per("on", "sse"),
    failures,
  };
  console.info(
    `${`model SSE CPU, stream recording off vs on, ${model}`.padEnd(50)} c=${String(connections).padStart(3)}  ${fmt(row.off_cpu_ms_per_chat, 2)} → ${fmt(row.on_cpu_ms_per_chat, 2)} ms/chat (${fmt(row.on_cpu_ms_per_chat / row.off_cpu_ms_per_chat, 2)}×)${failures > 0 ? ` [failed ${failures}]` : ""}`,
  );
  return row;
}
