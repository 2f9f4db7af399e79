/**
 * A CPU profile of the service answering streamed chats from a model endpoint, to see where a
 * chat's CPU goes (BENCHMARKS.md cites it):
 *
 *   npx tsx bench/profile-model-chat.ts [json|sse|text|mcp|a2a] [connections] [seconds]
 *
 * Needs a build (`next build`) and PostgreSQL at BENCH_DATABASE_URL or TEST_DATABASE_URL (a
 * throwaway database is made and dropped). Starts the fake model (bench/fake-model.ts) and the
 * service with `--cpu-prof`, drives `PROFILE_MODEL` (default fake-t200-w20-l250) for the given
 * time with autocannon, a fresh thread per chat, and leaves the .cpuprofile files of the
 * serving process in PROFILE_DIR (default bench/results/profiles). `PROFILE_MODEL=echo` profiles the
 * echo rows' chat instead: the built-in echo provider (no fake), every chat on one thread.
 * `PROFILE_TARGET=baseline` profiles the baseline (bench/baseline-process.ts) under the same load
 * instead, so that the two profiles can be set side by side.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import path from "node:path";
import autocannon from "autocannon";
import { SERVER_NODE_OPTIONS, startServer } from "../tests/helpers/server";
import { createThrowawayDatabase } from "../tests/helpers/throwaway-postgres";
import { a2aSendMessage } from "./a2a-message";
import { createLoadAgent } from "./load-agent";
import { startChild } from "./processes";

const [format = "sse", connections = "16", seconds = "10"] = process.argv.slice(2);
const mcpCall = () =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "chat", arguments: { message: "hello", thread_id: `m${randomUUID()}` } },
  });
const ACCEPT: Record<string, string> = { json: "application/json", text: "text/plain" };
const serverUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
if (!serverUrl)
  throw new Error("Set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a PostgreSQL server.");
const model = process.env.PROFILE_MODEL || "fake-t200-w20-l250";
const profileDir = path.resolve(process.env.PROFILE_DIR || "bench/results/profiles");
mkdirSync(profileDir, { recursive: true });

const database = await createThrowawayDatabase(serverUrl, "profile");
const echo = model === "echo";
const baseline = process.env.PROFILE_TARGET === "baseline";
const profiling = {
  NODE_OPTIONS: `${SERVER_NODE_OPTIONS} --require ${path.resolve("bench/cpu-profile-preload.cjs")}`,
  CPU_PROFILE_DIR: profileDir,
  ...(process.env.CPU_PROFILE_INTERVAL_US
    ? { CPU_PROFILE_INTERVAL_US: process.env.CPU_PROFILE_INTERVAL_US }
    : {}),
};
const fake = echo ? undefined : await startChild("bench/fake-model.ts");
try {
  const server = await startServer({
    DATABASE_URL: database.url,
    ...(fake
      ? { LLM_BASE_URL: fake.url, LLM_API_KEY: "profile" }
      : { LLM_MAX_CONCURRENCY: "1000" }),
    SCHEDULER: "off",
    // One web process: one profile holds every chat.
    WEB_CONCURRENCY: "1",
    ...(baseline ? {} : profiling),
  });
  // The baseline reads the agent the service made, from the same database.
  const target = baseline
    ? await startChild("bench/baseline-process.ts", {
        BASELINE_DATABASE_URL: database.url,
        ...(fake ? { LLM_BASE_URL: fake.url, LLM_API_KEY: "profile" } : {}),
        ...profiling,
      })
    : undefined;
  try {
    await createLoadAgent(server.url, { aid: "profiled", model });
    const base = target?.url ?? server.url;
    const result = await autocannon(
      format === "a2a"
        ? {
            // The same chat as an A2A message answered when its task ends, a fresh context each.
            url: `${base}/profiled/a2a`,
            method: "POST",
            headers: { "content-type": "application/json", "a2a-version": "1.0" },
            requests: [
              { setupRequest: (request) => ({ ...request, body: a2aSendMessage("hello") }) },
            ],
            connections: Number(connections),
            duration: Number(seconds),
          }
        : format === "mcp"
          ? {
              // The same chat as a call of the agent's MCP tool, on a fresh thread each.
              url: `${base}/profiled/mcp`,
              method: "POST",
              headers: {
                "content-type": "application/json",
                accept: "application/json, text/event-stream",
              },
              requests: [{ setupRequest: (request) => ({ ...request, body: mcpCall() }) }],
              connections: Number(connections),
              duration: Number(seconds),
            }
          : {
              url: `${base}/profiled/chat?q=hello&chat_id=${echo ? "bench" : "c[<id>]"}`,
              idReplacement: !echo,
              headers: { accept: ACCEPT[format] ?? "text/event-stream" },
              connections: Number(connections),
              duration: Number(seconds),
            },
    );
    console.info(
      `${format} at ${connections} connections: ${result.requests.average} chats/s, p50 ${result.latency.p50} ms; statuses ${JSON.stringify(result.statusCodeStats)}`,
    );
  } finally {
    await target?.stop();
    await server.stop();
  }
} finally {
  await fake?.stop();
  await database.drop();
}
console.info(`Profiles in ${profileDir}`);
