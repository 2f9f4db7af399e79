import { randomUUID } from "node:crypto";
import { a2aSendMessage } from "./a2a-message";
import { median } from "./median";

type Format = "json" | "sse";

/** A way's ratio over the rounds: their median, middle half (quartiles), least and greatest. */
type Spread = { median: number; lower: number; upper: number; least: number; greatest: number };

/**
 * The same chat asked the other ways a client can ask it (bench/model-rows.ts, "chat against
 * the adapters"): each a request for the load generator and what its body must hold to count,
 * and the row their rounds make. Every one asks on a fresh thread, as the chat's rows do.
 */

/** The ways measured, in a round's first order (the chat, then its adapters). */
export const ADAPTER_WAYS = [
  "chat",
  "completion",
  "response",
  "recorded_response",
  "own_endpoint",
  "mcp",
  "a2a",
] as const;

export type AdapterWay = (typeof ADAPTER_WAYS)[number];

/** Each way's name in the row, and what its ratio is taken against. */
const SHOWN: Record<Exclude<AdapterWay, "chat">, { name: string; against: AdapterWay }> = {
  completion: { name: "POST /v1/chat/completions", against: "chat" },
  response: { name: "POST /v1/responses", against: "chat" },
  recorded_response: { name: "background (recorded) against unrecorded", against: "response" },
  own_endpoint: { name: "own endpoint", against: "chat" },
  mcp: { name: "POST /{aid}/mcp tools/call", against: "chat" },
  a2a: { name: "POST /{aid}/a2a SendMessage", against: "chat" },
};

/**
 * The row of a format's rounds (each way's CPU a chat, in ms): each way's median CPU, and its
 * ratio as the median of its rounds' ratios, with their middle half, least and greatest.
 */
export function adapterRow(
  format: Format,
  model: string,
  settings: { cpu_connections: number; adapter_chats: number },
  rounds: Partial<Record<AdapterWay, number>>[],
  failures: number,
) {
  const cpu: Partial<Record<AdapterWay, number>> = {};
  const ratios: Partial<Record<AdapterWay, Spread>> = {};
  for (const way of ADAPTER_WAYS) {
    const measured = rounds.map((round) => round[way]).filter((v) => v !== undefined);
    if (measured.length === 0) continue;
    cpu[way] = median(measured);
    if (way === "chat") continue;
    const { against } = SHOWN[way];
    const each = rounds
      .map((round) => (round[way] as number) / (round[against] as number))
      .sort((a, b) => a - b);
    const at = (q: number) => each[Math.floor(q * (each.length - 1))] as number;
    ratios[way] = {
      median: median(each),
      lower: at(0.25),
      upper: at(0.75),
      least: at(0),
      greatest: at(1),
    };
  }
  const fixed = (value: number) => value.toFixed(2);
  const shown = (Object.keys(SHOWN) as Exclude<AdapterWay, "chat">[])
    .filter((way) => ratios[way])
    .map((way) => {
      const ratio = ratios[way] as Spread;
      return `${SHOWN[way].name} ${fixed(cpu[way] as number)} ms (${fixed(ratio.median)}×, middle half ${fixed(ratio.lower)}–${fixed(ratio.upper)}, all ${fixed(ratio.least)}–${fixed(ratio.greatest)})`;
    });
  return {
    format,
    model,
    connections: settings.cpu_connections,
    rounds: rounds.length,
    chats_a_measurement: settings.adapter_chats,
    cpu_ms_per_chat: cpu,
    ratios,
    /** Each round's CPU a chat by way, in ms, for the spread behind the medians. */
    per_round: rounds,
    failures,
    line: [`GET /{aid}/chat ${fixed(cpu.chat as number)} ms`, ...shown].join(" | "),
  };
}

/** An OpenAI chat completion (issue 26: no more CPU than GET /{aid}/chat). */
export const completionThrough = (base: string, aid: string, question: string, format: Format) => ({
  url: `${base}/v1/chat/completions`,
  method: "POST" as const,
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    model: aid,
    messages: [{ role: "user", content: question }],
    stream: format === "sse",
  }),
  complete: (body: string) =>
    format === "sse"
      ? body.endsWith("data: [DONE]\n\n")
      : body.includes('"object":"chat.completion"'),
});

/** A call of the agent's MCP tool (issue 47: within 1.1× of GET /{aid}/chat). */
export const mcpThrough = (base: string, aid: string, question: string) => ({
  url: `${base}/${aid}/mcp`,
  method: "POST" as const,
  headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
  // A fresh thread for each call: idReplacement would change the body's length.
  body: () =>
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "chat", arguments: { message: question, thread_id: `m-${randomUUID()}` } },
    }),
  complete: (body: string) => body.includes('"result"') && !body.includes('"isError":true'),
});

/**
 * A response of the Responses API, kept as its default is (issue 47: within 1.1×); in the
 * background, its events also recorded for clients that come back (issue 48).
 */
export const responseThrough = (
  base: string,
  aid: string,
  question: string,
  format: Format,
  background = false,
) => ({
  url: `${base}/v1/responses`,
  method: "POST" as const,
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    model: aid,
    input: question,
    stream: format === "sse",
    ...(background ? { background: true } : {}),
  }),
  complete: (body: string) =>
    format === "sse"
      ? body.includes("event: response.completed\n")
      : body.includes('"status":"completed"'),
});

/** An A2A message, answered when its task ends, in a fresh context (issue 47: within 1.1×). */
export const a2aThrough = (base: string, aid: string, question: string) => ({
  url: `${base}/${aid}/a2a`,
  method: "POST" as const,
  headers: { "content-type": "application/json", "a2a-version": "1.0" },
  body: () => a2aSendMessage(question),
  complete: (body: string) => body.includes('"TASK_STATE_COMPLETED"'),
});
