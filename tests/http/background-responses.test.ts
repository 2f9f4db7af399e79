import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { adminApi } from "../helpers/admin-api";
import { DATABASE_KINDS } from "../helpers/database-kinds";
import type { FakeOpenAi } from "../helpers/fake-openai";
import { type ModelServer, startModelServer, startOtherInstance } from "../helpers/model-server";
import type { RunningServer } from "../helpers/server";

/**
 * Background responses (`background: true` on POST /v1/responses) through the official `openai`
 * package: answered on after the request ends and counted once, streamed, left and followed again
 * after the last event received, cancelled. On PostgreSQL the stream is followed, and the
 * response cancelled, through a second instance on the same database.
 */

const REPLY = "one two three four five six seven eight nine ten eleven twelve";

type Event = { type: string; sequence_number: number; delta?: string };

describe.each(DATABASE_KINDS)("background responses on %s", (kind) => {
  let running: ModelServer | undefined;
  let server: RunningServer;
  let other: RunningServer | undefined;
  let fake: FakeOpenAi;

  beforeAll(async () => {
    running = await startModelServer(kind, {
      LLM_MAX_RETRIES: "0",
      SCHEDULER: "off",
      ...(kind === "postgres" ? { WEB_CONCURRENCY: "1" } : {}),
    });
    ({ server, fake } = running);
    // A second instance on the same database: what it streams and cancels, the first answers.
    other = await startOtherInstance(running);
  });
  afterAll(async () => {
    await other?.stop();
    await running?.stop();
  });
  beforeEach(() => {
    fake.requests.splice(0);
    fake.behave({ kind: "reply", text: REPLY });
  });

  const { createAgent, agent, keyOf } = adminApi(() => server.url, "background");
  const openai = (at = server) =>
    new OpenAI({ baseURL: `${at.url}/v1`, apiKey: "anonymous", maxRetries: 0 });
  const follower = () => other ?? server;

  it("answers in progress at once, then completes on after the request, counted once", async () => {
    await createAgent({ aid: "patient" });
    fake.behave({ kind: "reply", text: REPLY, delayMs: 300 });
    const begun = await openai().responses.create({
      model: "patient",
      input: "Take your time.",
      background: true,
    });
    expect(begun).toMatchObject({ status: "in_progress", background: true, output: [] });
    await vi.waitFor(
      async () => {
        const read = await openai(follower()).responses.retrieve(begun.id);
        expect(read).toMatchObject({ status: "completed", background: true, output_text: REPLY });
      },
      { timeout: 10_000, interval: 100 },
    );
    expect(fake.requests).toHaveLength(1);
    expect((await agent("patient")).quota.message_count_total).toBe(1);
    // Its events stay to be streamed again, from the first, to the end.
    const again = await openai(follower()).responses.retrieve(begun.id, { stream: true });
    const types: string[] = [];
    for await (const event of again) types.push(event.type);
    expect(types[0]).toBe("response.created");
    expect(types.at(-1)).toBe("response.completed");
  });

  it("sends every event once, in order, to a client that leaves and follows again", async () => {
    await createAgent({ aid: "streamer" });
    fake.behave({ kind: "reply", text: REPLY, chunks: 12, chunkDelayMs: 60 });
    const stream = await openai().responses.create({
      model: "streamer",
      input: "Count.",
      background: true,
      stream: true,
    });
    const seen: Event[] = [];
    let id = "";
    for await (const event of stream) {
      seen.push(event as Event);
      if (event.type === "response.created") id = event.response.id;
      if (event.type === "response.output_text.delta" && seen.length >= 6) break;
    }
    const last = seen.at(-1)?.sequence_number as number;
    const rest = await openai(follower()).responses.retrieve(id, {
      stream: true,
      starting_after: last,
    });
    for await (const event of rest) seen.push(event as Event);
    expect(seen.map((event) => event.sequence_number)).toEqual(seen.map((_, index) => index));
    expect(seen.at(-1)?.type).toBe("response.completed");
    const text = seen
      .filter((event) => event.type === "response.output_text.delta")
      .map((event) => event.delta)
      .join("");
    expect(text).toBe(REPLY);
    expect(fake.requests).toHaveLength(1);
    expect((await agent("streamer")).quota.message_count_total).toBe(1);
  });

  it("cancels through any instance: the model call is closed, the message given back", async () => {
    await createAgent({ aid: "stopped" });
    fake.behave({ kind: "hang" });
    const begun = await openai().responses.create({
      model: "stopped",
      input: "Never mind.",
      background: true,
    });
    await vi.waitFor(() => expect(fake.inFlight()).toBe(1));
    const abandoned = fake.abandoned();
    const cancelled = await openai(follower()).responses.cancel(begun.id);
    expect(cancelled).toMatchObject({ id: begun.id, status: "cancelled", background: true });
    await vi.waitFor(() => expect(fake.abandoned()).toBe(abandoned + 1));
    expect((await openai().responses.retrieve(begun.id)).status).toBe("cancelled");
    expect((await agent("stopped")).quota.message_count_total).toBe(0);
    // A response that has ended is answered as it is.
    expect((await openai(follower()).responses.cancel(begun.id)).status).toBe("cancelled");
  });

  it("begins a chat in the background on Prefer: respond-async, in the chat's own thread", async () => {
    await createAgent({ aid: "deferred" });
    fake.behave({ kind: "reply", text: REPLY, chunks: 4, chunkDelayMs: 50 });
    const asked = await fetch(`${server.url}/deferred/chat?q=First&chat_id=later`, {
      headers: { prefer: "respond-async, wait=0" },
    });
    expect(asked.status).toBe(202);
    expect(asked.headers.get("preference-applied")).toBe("respond-async");
    const location = asked.headers.get("location") as string;
    const begun = await asked.json();
    expect(location).toBe(`/v1/responses/${begun.id}`);
    expect(begun).toMatchObject({ status: "in_progress", background: true, model: "deferred" });
    const followed = await fetch(`${follower().url}${location}?stream=true`);
    expect(followed.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(await followed.text()).toContain("event: response.completed");
    expect((await openai(follower()).responses.retrieve(begun.id)).output_text).toBe(REPLY);
    // The exchange is the thread's: the next chat in it sends it to the model.
    fake.behave({ kind: "reply", text: "again" });
    expect(await (await fetch(`${server.url}/deferred/chat?q=Second&chat_id=later`)).text()).toBe(
      "again",
    );
    const sent = (fake.requests.at(-1)?.messages ?? []).map((m) => m.content);
    expect(sent.slice(-3)).toEqual(["First", REPLY, "Second"]);
    expect((await agent("deferred")).quota.message_count_total).toBe(2);
  });

  it("refuses what cannot be: unkept background, streaming or cancelling an open answer", async () => {
    await createAgent({ aid: "strict" });
    const refused = await openai()
      .responses.create({ model: "strict", input: "Hi", background: true, store: false })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 400, param: "background" });
    const answered = await openai().responses.create({ model: "strict", input: "Hi" });
    expect(answered.background).toBe(false);
    const streamed = await fetch(`${server.url}/v1/responses/${answered.id}?stream=true`);
    expect(streamed.status).toBe(400);
    expect((await streamed.json()).error).toMatchObject({ param: "stream" });
    const cancel = await openai()
      .responses.cancel(answered.id)
      .catch((error: unknown) => error);
    expect(cancel).toMatchObject({ status: 400 });
    // Another caller's background response is not there for it.
    const begun = await openai().responses.create({
      model: "strict",
      input: "Hi",
      background: true,
    });
    const keyed = new OpenAI({
      baseURL: `${server.url}/v1`,
      apiKey: await keyOf("strict"),
      maxRetries: 0,
    });
    expect(await keyed.responses.cancel(begun.id).catch((error: unknown) => error)).toMatchObject({
      status: 404,
    });
  });
});
