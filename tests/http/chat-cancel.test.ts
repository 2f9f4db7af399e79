import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ModelServer, startModelServer, startOtherInstance } from "../helpers/model-server";
import { type RunningServer, sendAsAdmin } from "../helpers/server";

const CHATS = 200;

/** The events of a stream read so far, by name and JSON data. */
function eventsIn(text: string): { event: string; data: unknown }[] {
  return text
    .split("\n\n")
    .filter((block) => block.includes("data: "))
    .map((block) => ({
      event: /^event: (.*)$/m.exec(block)?.[1] ?? "message",
      data: JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? "null"),
    }));
}

/**
 * Issue #48, item 3, across instances: 200 streamed chats answered by one instance on
 * PostgreSQL, each cancelled by its X-Request-Id through the other. Every cancel is answered,
 * every stream ends with `chat_cancelled`, every model call is closed, no message is counted,
 * and the request log holds each cancel.
 */
describe("cancelling chats through the other instance on postgres", () => {
  let running: ModelServer | undefined;
  let one: RunningServer;
  let two: RunningServer;

  beforeAll(async () => {
    const env = { LLM_MAX_RETRIES: "0", SCHEDULER: "off", WEB_CONCURRENCY: "1" };
    running = await startModelServer("postgres", env);
    one = running.server;
    two = (await startOtherInstance(running, env)) as RunningServer;
  });
  afterAll(async () => {
    await two?.stop();
    await running?.stop();
  });

  it(`stops ${CHATS} streams at once, whichever instance is asked`, async () => {
    const fake = (running as ModelServer).fake;
    const made = await sendAsAdmin(one, "POST", "/agents", {
      aid: "stopped",
      rate_limit_rpm: null,
    });
    expect(made.status).toBe(201);
    fake.behave({ kind: "stall", text: "the first words, then nothing" });
    fake.resetCounters();

    // Each stream read until its first delta: the model call is open and the use counted.
    const streams = await Promise.all(
      Array.from({ length: CHATS }, async (_, i) => {
        const response = await fetch(`${one.url}/stopped/chat?q=hi&chat_id=t-${i}`, {
          headers: { accept: "text/event-stream" },
        });
        expect(response.status).toBe(200);
        const reader = (response.body as ReadableStream<Uint8Array>).getReader();
        const decoder = new TextDecoder();
        let text = "";
        while (!eventsIn(text).some((e) => e.event === "delta")) {
          const { value, done } = await reader.read();
          if (done) break;
          text += decoder.decode(value, { stream: true });
        }
        const rest = (async () => {
          for (;;) {
            const { value, done } = await reader.read();
            if (done) return eventsIn(text);
            text += decoder.decode(value, { stream: true });
          }
        })();
        return { requestId: response.headers.get("x-request-id") as string, rest };
      }),
    );
    expect(fake.inFlight()).toBe(CHATS);

    const cancels = await Promise.all(
      streams.map(({ requestId }) =>
        fetch(`${two.url}/stopped/chat/${requestId}/cancel`, { method: "POST" }),
      ),
    );
    expect(cancels.map((c) => c.status)).toEqual(Array(CHATS).fill(200));
    const answers = await Promise.all(cancels.map((c) => c.json()));
    expect(answers.map((a) => a.request_id)).toEqual(streams.map((s) => s.requestId));

    for (const { rest } of streams)
      expect((await rest).at(-1)).toMatchObject({
        event: "error",
        data: { status: 409, code: "chat_cancelled" },
      });
    await expect.poll(() => fake.inFlight()).toBe(0);
    expect(fake.abandoned()).toBe(CHATS);
    const agent = await sendAsAdmin(two, "GET", "/agents/stopped");
    expect(agent.json.quota.message_count_daily).toBe(0);
    await expect
      .poll(async () => {
        const log = await sendAsAdmin(two, "GET", "/requests?aid=stopped&limit=500");
        return (log.json.requests as { code: string }[]).filter((r) => r.code === "chat_cancelled")
          .length;
      })
      .toBe(CHATS);
  });
});
