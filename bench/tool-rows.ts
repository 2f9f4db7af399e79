/**
 * The tool row of `npm run bench` (`BENCH_ONLY=tools` runs it alone, and so does
 * `npx tsx bench/tool-rows.ts`): what one tool round trip costs a chat through the service,
 * against calling the same MCP server directly.
 *
 * The fake model (bench/fake-model.ts, model `fake-tool`) asks for `add` when offered tools and
 * answers once it has the result; the MCP server is the tests' (bench/mcp-server.ts); each runs
 * in a process of its own, on loopback. One request at a time (latency, not throughput), each
 * chat on a thread of its own (no history), in alternating rounds so drift hits all alike:
 *
 * - `direct_mcp`: `tools/call` of `add` by an SDK client in this process, on one session;
 * - `direct_model`: the model turn a tool adds (the request after the result), straight to the fake;
 * - `service_plain`: a chat (JSON) with an agent without tools: one model turn;
 * - `service_tool`: a chat with the agent that has the server: turn, tool call, turn.
 *
 * `added_ms` = service_tool − service_plain (p50s): what one tool round trip adds to a chat;
 * `overhead_ms` = added − direct_mcp − direct_model: what the service spends on it beyond the
 * tool and the model turn themselves (listing from the pool's cache, parsing the calls, the
 * events, storing the calls with the reply).
 */
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createDatabase } from "@/db/client";
import { startServer, TEST_ADMIN_KEY } from "../tests/helpers/server";
import { createThrowawayDatabase } from "../tests/helpers/throwaway-postgres";
import { FAKE_TOOL_MODEL } from "./fake-model-name";
import { startChild } from "./processes";

const CHATS = Number(process.env.BENCH_TOOL_CHATS || 300);
const ROUNDS = 5;
const WARM_UP = 30;

type Percentiles = { p50: number; p99: number; n: number };

export type ToolRow = {
  chats_each: number;
  direct_mcp: Percentiles;
  direct_model: Percentiles;
  service_plain: Percentiles;
  service_tool: Percentiles;
  added_ms: number;
  overhead_ms: number;
};

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };

export async function runToolBenchmarks(databaseUrl: string): Promise<ToolRow> {
  const database = createDatabase({ kind: "postgres", url: databaseUrl });
  await database.migrate();
  await database.close();
  const fake = await startChild("bench/fake-model.ts");
  const mcp = await startChild("bench/mcp-server.ts");
  const service = await startServer({
    DATABASE_URL: databaseUrl,
    LLM_BASE_URL: fake.url,
    LLM_API_KEY: "sk-bench",
    SCHEDULER: "off",
    // The MCP server runs on loopback, which agents may call only when it is listed.
    MCP_ALLOWED_HOSTS: "127.0.0.1",
  });
  const client = new Client({ name: "bench", version: "1.0.0" });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
    for (const [aid, servers] of [
      ["bench-tool-plain", []],
      ["bench-tool", [{ name: "calc", url: mcp.url, allowed_tools: ["add"] }]],
    ] as const) {
      const response = await fetch(`${service.url}/agents`, {
        method: "POST",
        headers: admin,
        body: JSON.stringify({
          aid,
          name: "Bench tools",
          model: FAKE_TOOL_MODEL,
          mcp_servers: servers,
          rate_limit_rpm: null,
          quota: {
            message_limit_total: null,
            message_limit_monthly: null,
            message_limit_daily: null,
          },
        }),
      });
      if (!response.ok) throw new Error(`POST /agents ${aid}: ${response.status}`);
    }

    let chatId = 0;
    const chat = (aid: string) => async () => {
      const response = await fetch(`${service.url}/${aid}/chat?q=40%2B2%3F&chat_id=t-${chatId++}`, {
        headers: { accept: "application/json" },
      });
      const body = await response.text();
      if (!response.ok || !body.includes("It is 42.")) throw new Error(`chat: ${response.status}`);
    };
    const callMcp = async () => {
      const result = await client.callTool({ name: "add", arguments: { a: 40, b: 2 } });
      if ((result.content as { text?: string }[])[0]?.text !== "42") throw new Error("add");
    };
    const afterTool = JSON.stringify({
      model: FAKE_TOOL_MODEL,
      messages: [
        { role: "system", content: "You are Bench tools." },
        { role: "user", content: "40+2?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "c1", type: "function", function: { name: "add", arguments: '{"a":40,"b":2}' } },
          ],
        },
        { role: "tool", tool_call_id: "c1", content: "42" },
      ],
      max_tokens: 1024,
      tools: [{ type: "function", function: { name: "add", parameters: { type: "object" } } }],
    });
    const callModel = async () => {
      const response = await fetch(`${fake.url}/chat/completions`, {
        method: "POST",
        headers: { authorization: "Bearer sk-bench", "content-type": "application/json" },
        body: afterTool,
      });
      if (!(await response.text()).includes("It is 42.")) throw new Error("model");
    };

    const kinds = {
      direct_mcp: callMcp,
      direct_model: callModel,
      service_plain: chat("bench-tool-plain"),
      service_tool: chat("bench-tool"),
    };
    const samples: Record<keyof typeof kinds, number[]> = {
      direct_mcp: [],
      direct_model: [],
      service_plain: [],
      service_tool: [],
    };
    for (const run of Object.values(kinds)) for (let i = 0; i < WARM_UP; i++) await run();
    for (let round = 0; round < ROUNDS; round++) {
      for (const [kind, run] of Object.entries(kinds) as [
        keyof typeof kinds,
        () => Promise<void>,
      ][]) {
        for (let i = 0; i < CHATS / ROUNDS; i++) {
          const started = performance.now();
          await run();
          samples[kind].push(performance.now() - started);
        }
      }
    }
    const row = {
      chats_each: CHATS,
      direct_mcp: percentiles(samples.direct_mcp),
      direct_model: percentiles(samples.direct_model),
      service_plain: percentiles(samples.service_plain),
      service_tool: percentiles(samples.service_tool),
    };
    const added = row.service_tool.p50 - row.service_plain.p50;
    const result = {
      ...row,
      added_ms: round2(added),
      overhead_ms: round2(added - row.direct_mcp.p50 - row.direct_model.p50),
    };
    printRow(result);
    return result;
  } finally {
    await client.close().catch(() => {});
    await service.stop();
    await mcp.stop();
    await fake.stop();
  }
}

function percentiles(values: number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
  return { p50: round2(at(0.5)), p99: round2(at(0.99)), n: sorted.length };
}

const round2 = (n: number) => Math.round(n * 100) / 100;

function printRow(row: ToolRow) {
  const line = (name: string, p: Percentiles) =>
    `  ${name.padEnd(14)} p50 ${p.p50.toFixed(2).padStart(7)} ms   p99 ${p.p99.toFixed(2).padStart(7)} ms`;
  console.info(
    [
      `tool round trip (${row.chats_each} each, 1 at a time):`,
      line("direct MCP", row.direct_mcp),
      line("direct model", row.direct_model),
      line("chat, no tool", row.service_plain),
      line("chat, 1 tool", row.service_tool),
      `  a tool round trip adds ${row.added_ms.toFixed(2)} ms to a chat; beyond the MCP call and the model turn, the service spends ${row.overhead_ms.toFixed(2)} ms`,
    ].join("\n"),
  );
}

// Run on its own: a throwaway database on BENCH_DATABASE_URL's server, dropped afterwards.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  const database = await createThrowawayDatabase(server, "agent_bench_tools");
  try {
    await runToolBenchmarks(database.url);
  } finally {
    await database.drop();
  }
}
