/**
 * The fake OpenAI-compatible endpoint (tests/helpers/fake-openai.ts) as a process of its own,
 * so that it shares no event loop with autocannon, the service or the baseline:
 *
 *   node --import tsx bench/fake-model.ts
 *
 * It listens on a free loopback port and prints its base URL (ending in /v1) as the first line
 * on stdout. Each request is answered as
 * its `model` says: `fake-t<tokens>-w<writes>-l<latencyMs>` (bench/fake-model-name.ts); `fake-tool`
 * asks for one tool call, then answers; any other model gets a short fixed reply. Started with an IPC channel, it answers `{ type: "stats" }`
 * with its counters since the last `{ type: "reset" }` (the most requests open at once,
 * requests the client abandoned, requests served), and it ends when that channel closes (the
 * benchmark is gone), as on SIGTERM or SIGINT.
 */
import { startFakeOpenAi } from "../tests/helpers/fake-openai";
import { FAKE_TOOL_MODEL, parseFakeModelName } from "./fake-model-name";

export type FakeModelStats = {
  type: "stats";
  inFlight: number;
  maxInFlight: number;
  abandoned: number;
  served: number;
};

const fake = await startFakeOpenAi();
fake.behaveBy((request) => {
  // The tool row's model (bench/tool-rows.ts): offered tools, it asks for `add` once; given the
  // result (or no tools), it answers.
  if (request.model === FAKE_TOOL_MODEL) {
    return request.tools && request.messages.at(-1)?.role !== "tool"
      ? { kind: "tools", calls: [{ name: "add", arguments: { a: 40, b: 2 } }] }
      : { kind: "reply", text: "It is 42." };
  }
  const model = parseFakeModelName(request.model);
  return model
    ? { kind: "tokens", tokens: model.tokens, writes: model.writes, latencyMs: model.latencyMs }
    : { kind: "reply", text: "Hello from the fake model." };
});

// The fake keeps every request body for tests' assertions; here nobody reads them.
const forget = setInterval(() => fake.requests.splice(0), 1000);

process.on("message", (message: { type?: string }) => {
  if (message.type === "reset") {
    fake.resetCounters();
    process.send?.({ type: "reset" });
  } else if (message.type === "stats") {
    const served = Object.values(fake.served()).reduce((sum, n) => sum + n, 0);
    const stats: FakeModelStats = {
      type: "stats",
      inFlight: fake.inFlight(),
      maxInFlight: fake.maxInFlight(),
      abandoned: fake.abandoned(),
      served,
    };
    process.send?.(stats);
  }
});

const stop = async () => {
  clearInterval(forget);
  // Connections still open are cut; give up waiting for them after 2 s.
  await Promise.race([fake.close(), new Promise((resolve) => setTimeout(resolve, 2000))]);
  process.exit(0);
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
process.once("disconnect", stop);

process.stdout.write(`${fake.baseUrl}\n`);
