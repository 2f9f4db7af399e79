import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../helpers/database-kinds";
import type { FakeOpenAi } from "../helpers/fake-openai";
import { haproxyInstalled, type RunningBalancer, startBalancer } from "../helpers/haproxy";
import { type ModelServer, startModelServer, startOtherInstance } from "../helpers/model-server";
import { type RunningServer, sendAsAdmin } from "../helpers/server";

type Event = { id: string; event: string; data: unknown };

/** Reads a stream's events; `stopAfter` of them, then the connection is dropped. */
async function readEvents(
  url: string,
  { lastEventId, stopAfter }: { lastEventId?: string; stopAfter?: number } = {},
): Promise<{ status: number; events: Event[]; problem?: unknown }> {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: {
      accept: "text/event-stream",
      ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }),
    },
    signal: controller.signal,
  });
  if (response.status !== 200)
    return { status: response.status, events: [], problem: await response.json() };
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const events: Event[] = [];
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.indexOf("\n\n");
    while (end !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      events.push({
        id: /^id: (.*)$/m.exec(block)?.[1] ?? "",
        event: /^event: (.*)$/m.exec(block)?.[1] ?? "message",
        data: JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? "null"),
      });
      end = buffer.indexOf("\n\n");
    }
    if (stopAfter !== undefined && events.length >= stopAfter) {
      controller.abort();
      break;
    }
  }
  return { status: 200, events };
}

/** What a stream read in pieces adds up to: each event once, in order, its text whole. */
function assertWhole(events: Event[], resumed?: { status: number; problem?: unknown }): void {
  const requestId = events[0]?.id.split("/")[0];
  const seen = `${events.map((e) => `${e.id} ${e.event}`).join(", ")}; resumed: ${JSON.stringify(resumed)}`;
  expect(
    events.map((e) => e.id),
    seen,
  ).toEqual(events.map((_, i) => `${requestId}/${i}`));
  expect(events[0]?.event).toBe("start");
  const done = events.at(-1) as Event;
  expect(done.event, seen).toBe("done");
  const text = events
    .filter((e) => e.event === "delta")
    .map((e) => (e.data as { text: string }).text)
    .join("");
  expect(text).toBe((done.data as { reply: string }).reply);
}

/**
 * Issue #48, item 1: GET /{aid}/chat's streams resumed with `Last-Event-ID` after their client
 * left: the rest, then the live tail; counted once; stopped and given back when no client comes
 * back within CHAT_RESUME_S; only for the same caller.
 */
describe.each(DATABASE_KINDS)("resuming a chat's stream on %s", (kind) => {
  let running: ModelServer | undefined;
  let server: RunningServer;
  let fake: FakeOpenAi;

  beforeAll(async () => {
    running = await startModelServer(kind, {
      LLM_MAX_RETRIES: "0",
      SCHEDULER: "off",
      CHAT_RESUME_S: "2",
    });
    ({ server, fake } = running);
  });
  afterAll(() => running?.stop());

  const count = async (aid: string) =>
    (await sendAsAdmin(server, "GET", `/agents/${aid}`)).json.quota.message_count_daily;

  it("gives the rest after the last event, live, and counts the chat once", async () => {
    await sendAsAdmin(server, "POST", "/agents", { aid: "resumed", rate_limit_rpm: null });
    fake.behave({ kind: "tokens", tokens: 60, writes: 12, latencyMs: 1200 });
    const url = `${server.url}/resumed/chat?q=hi`;
    const first = await readEvents(url, { stopAfter: 4 });
    expect(first.events).toHaveLength(4);
    const rest = await readEvents(url, { lastEventId: first.events.at(-1)?.id });
    assertWhole([...first.events, ...rest.events]);
    expect(await count("resumed")).toBe(1);

    // Resumed again from an earlier event, once ended: the same events again, from there.
    const again = await readEvents(url, { lastEventId: first.events[1]?.id });
    expect(again.events).toEqual([...first.events, ...rest.events].slice(2));
    expect(await count("resumed")).toBe(1);
  });

  it("stops a stream no client resumes in time and gives its message back", async () => {
    await sendAsAdmin(server, "POST", "/agents", { aid: "left", rate_limit_rpm: null });
    fake.behave({ kind: "stall", text: "a few words and then nothing" });
    fake.resetCounters();
    const url = `${server.url}/left/chat?q=hi`;
    const first = await readEvents(url, { stopAfter: 2 });
    await expect.poll(() => fake.abandoned(), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => count("left")).toBe(0);
    // Its recording ends with the reason, for a client that comes back late.
    const late = await readEvents(url, { lastEventId: first.events.at(-1)?.id });
    expect(late.events.at(-1)).toMatchObject({
      event: "error",
      data: { code: "client_closed_request" },
    });
  });

  it("resumes only for the same caller, and refuses an id that is not one", async () => {
    await sendAsAdmin(server, "POST", "/agents", { aid: "mine", rate_limit_rpm: null });
    fake.behave({ kind: "tokens", tokens: 40, writes: 8, latencyMs: 800 });
    const first = await readEvents(`${server.url}/mine/chat?q=hi`, { stopAfter: 2 });
    const lastEventId = first.events.at(-1)?.id as string;
    // A key of the agent is another caller than the anonymous address that asked.
    const key = (await sendAsAdmin(server, "POST", "/agents/mine/keys", { name: "other" })).json
      .key as string;
    const other = await fetch(`${server.url}/mine/chat?q=hi`, {
      headers: {
        accept: "text/event-stream",
        "last-event-id": lastEventId,
        authorization: `Bearer ${key}`,
      },
    });
    expect(other.status).toBe(404);
    const malformed = await readEvents(`${server.url}/mine/chat?q=hi`, { lastEventId: "nope" });
    expect(malformed.status).toBe(400);
    const mine = await readEvents(`${server.url}/mine/chat?q=hi`, { lastEventId });
    assertWhole([...first.events, ...mine.events]);
  });
});

const DROPS = 500;

/**
 * The target: streams dropped at a random point and resumed through the other instance (on one
 * PostgreSQL database), and through HAProxy in front of both: every event once, in order; every
 * chat counted once.
 */
describe("resuming through the other instance on postgres", () => {
  let running: ModelServer | undefined;
  let one: RunningServer;
  let two: RunningServer;
  let balancer: RunningBalancer | undefined;

  beforeAll(async () => {
    const env = { LLM_MAX_RETRIES: "0", SCHEDULER: "off", WEB_CONCURRENCY: "1" };
    running = await startModelServer("postgres", env);
    one = running.server;
    two = (await startOtherInstance(running, env)) as RunningServer;
    if (haproxyInstalled) balancer = await startBalancer(one.url, two.url);
  });
  afterAll(async () => {
    await balancer?.stop();
    await two?.stop();
    await running?.stop();
  });

  it(`loses and repeats nothing over ${DROPS} drops`, async () => {
    const fake = (running as ModelServer).fake;
    await sendAsAdmin(one, "POST", "/agents", { aid: "dropped", rate_limit_rpm: null });
    fake.behave({ kind: "tokens", tokens: 200, writes: 20, latencyMs: 600 });
    const routes = [
      ...Array.from({ length: DROPS }, () => [one.url, two.url] as const),
      ...(balancer
        ? Array.from({ length: 100 }, () => [balancer?.url, balancer?.url] as const)
        : []),
    ];
    let next = 0;
    const worker = async () => {
      while (next < routes.length) {
        const [first, second] = routes[next++] as readonly [string, string];
        const stopAfter = 1 + Math.floor(Math.random() * 20);
        const begun = await readEvents(`${first}/dropped/chat?q=hi`, { stopAfter });
        const rest =
          begun.events.at(-1)?.event === "done"
            ? { status: 200, events: [] }
            : await readEvents(`${second}/dropped/chat?q=hi`, {
                lastEventId: begun.events.at(-1)?.id,
              });
        assertWhole([...begun.events, ...rest.events], rest);
      }
    };
    await Promise.all(Array.from({ length: 32 }, worker));
    const agent = await sendAsAdmin(two, "GET", "/agents/dropped");
    expect(agent.json.quota.message_count_daily).toBe(routes.length);
  });
});
