import OpenAI from "openai";
import postgres from "postgres";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { adminApi, adminHeaders } from "../helpers/admin-api";
import { DATABASE_KINDS } from "../helpers/database-kinds";
import type { FakeOpenAi } from "../helpers/fake-openai";
import { type ModelServer, startModelServer } from "../helpers/model-server";
import type { RunningServer } from "../helpers/server";

/**
 * Idempotency-Key on the operations that create or spend, against the built service (two
 * workers on PostgreSQL): a retry replays the first answer without the work, another request with
 * the key is 422, one while the first is in flight 409; what failed keeps nothing.
 */

const REPLY = "Hello from the fake model.";

describe.each(DATABASE_KINDS)("Idempotency-Key on %s", (kind) => {
  let running: ModelServer | undefined;
  let server: RunningServer;
  let fake: FakeOpenAi;

  beforeAll(async () => {
    running = await startModelServer(kind, {
      LLM_MAX_RETRIES: "0",
      LLM_MAX_CONCURRENCY: "300",
      SCHEDULER: "off",
      ...(kind === "postgres" ? { WEB_CONCURRENCY: "2" } : {}),
    });
    ({ server, fake } = running);
  });
  afterAll(() => running?.stop());
  beforeEach(() => {
    fake.requests.splice(0);
    fake.behave({ kind: "reply", text: REPLY });
  });

  const { createAgent, agent, post } = adminApi(() => server.url, "idempotency");
  const openai = () => new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "anon", maxRetries: 0 });
  const complete = (key: string, body: Record<string, unknown>, headers = {}) =>
    fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": key, ...headers },
      body: JSON.stringify(body),
    });

  it("replays a completion to the official client's retry, doing the work once", async () => {
    await createAgent({ aid: "once" });
    const body = { model: "once", messages: [{ role: "user" as const, content: "Hi" }] };
    const options = { headers: { "Idempotency-Key": "retry-1" } };
    const first = await openai().chat.completions.create(body, options).withResponse();
    const again = await openai().chat.completions.create(body, options).withResponse();
    expect(again.data).toEqual(first.data);
    expect(first.data.choices[0]?.message.content).toBe(REPLY);
    expect(first.response.headers.get("idempotent-replayed")).toBeNull();
    expect(again.response.headers.get("idempotent-replayed")).toBe("true");
    expect(fake.requests).toHaveLength(1);
    expect((await agent("once")).quota.message_count_total).toBe(1);
    // The key binds the request: another body with it is refused, in OpenAI's form.
    const other = await openai()
      .chat.completions.create({ ...body, messages: [{ role: "user", content: "Bye" }] }, options)
      .catch((error: unknown) => error);
    expect(other).toBeInstanceOf(OpenAI.APIError);
    expect(other).toMatchObject({ status: 422, code: "idempotency_key_reused" });
    expect((other as Error).message).toMatch(/sent with another request/);
    expect(fake.requests).toHaveLength(1);
  });

  it("replays a streamed completion's events as they were sent", async () => {
    await createAgent({ aid: "streamed" });
    fake.behave({ kind: "reply", text: REPLY, chunks: 4 });
    const body = { model: "streamed", stream: true, messages: [{ role: "user", content: "Hi" }] };
    const first = await complete("stream-1", body);
    const sent = await first.text();
    const again = await complete("stream-1", body);
    expect(again.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.text()).toBe(sent);
    expect(sent).toMatch(/data: \[DONE\]\n\n$/);
    expect(fake.requests).toHaveLength(1);
  });

  it("keeps what a background stream sent when its client left: a retry begins nothing new", async () => {
    await createAgent({ aid: "background" });
    fake.behave({ kind: "reply", text: REPLY, chunks: 10, chunkDelayMs: 100 });
    const body = { model: "background", input: "Long one.", background: true, stream: true };
    const send = (signal?: AbortSignal) =>
      fetch(`${server.url}/v1/responses`, {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": "leaves" },
        body: JSON.stringify(body),
        ...(signal ? { signal } : {}),
      });
    const leaving = new AbortController();
    const first = await send(leaving.signal);
    const reader = (first.body as ReadableStream<Uint8Array>).getReader();
    let sent = "";
    while (!sent.includes("response.in_progress"))
      sent += new TextDecoder().decode((await reader.read()).value);
    leaving.abort();
    const id = /"id":"(resp_[0-9a-f]+)"/.exec(sent)?.[1];
    // The key is kept as soon as the server sees the client gone: until then a retry is 409.
    let retried = await send();
    for (let i = 0; i < 100 && retried.status === 409; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      retried = await send();
    }
    expect(retried.status).toBe(200);
    expect(retried.headers.get("idempotent-replayed")).toBe("true");
    expect(await retried.text()).toContain(`"id":"${id}"`);
    const read = await fetch(`${server.url}/v1/responses/${id}`);
    expect((await read.json()).background).toBe(true);
    expect(fake.requests).toHaveLength(1);
  });

  it("answers 200 retries at once with one piece of work, one count and one answer", async () => {
    await createAgent({ aid: "contended" });
    let open: (value?: unknown) => void = () => {};
    const gate = new Promise((resolve) => {
      open = resolve;
    });
    // The model answers once every retry has been answered: each finds the first in flight.
    fake.behave({ kind: "reply", text: REPLY, gate });
    const body = { model: "contended", messages: [{ role: "user", content: "Once" }] };
    const first = complete("crowd", body);
    await until(() => fake.requests.length === 1);
    const retries = await Promise.all(Array.from({ length: 199 }, () => complete("crowd", body)));
    open();
    const answered = await first;
    expect(answered.status).toBe(200);
    const statuses = retries.map((r) => r.status);
    expect(statuses).toEqual(Array(199).fill(409));
    const refusal = await retries[0]?.json();
    expect(refusal.error).toMatchObject({ code: "idempotency_key_in_use" });
    expect(retries[0]?.headers.get("retry-after")).toBe("1");
    const text = await answered.text();
    const replays = await Promise.all(Array.from({ length: 200 }, () => complete("crowd", body)));
    expect(replays.map((r) => r.status)).toEqual(Array(200).fill(200));
    const texts = await Promise.all(replays.map((r) => r.text()));
    expect(new Set(texts)).toEqual(new Set([text]));
    expect(fake.requests).toHaveLength(1);
    expect((await agent("contended")).quota.message_count_total).toBe(1);
  });

  it("keeps nothing when the work fails, so that the retry does it", async () => {
    await createAgent({ aid: "failing" });
    fake.behave({ kind: "error", status: 500 }, { kind: "reply", text: REPLY });
    const body = { model: "failing", messages: [{ role: "user", content: "Hi" }] };
    expect((await complete("fails-once", body)).status).toBe(502);
    const retried = await complete("fails-once", body);
    expect(retried.status).toBe(200);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    expect(fake.requests).toHaveLength(2);
    expect((await agent("failing")).quota.message_count_total).toBe(1);
  });

  it("keeps each caller's keys apart: a key's id without its secret replays nothing", async () => {
    await createAgent({ aid: "members", chat_access: "key" });
    const { key, id } = await post("/agents/members/keys", { name: "member" });
    const body = { model: "members", messages: [{ role: "user", content: "Hi" }] };
    const own = await complete("shared", body, { authorization: `Bearer ${key}` });
    expect(own.status).toBe(200);
    const forged = `ak_${id}_${"A".repeat(43)}`;
    const other = await complete("shared", body, { authorization: `Bearer ${forged}` });
    expect(other.status).toBe(401);
    // To a caller who may not use it, a key-only agent is a model that is not there.
    const anonymous = await complete("shared", body);
    expect(anonymous.status).toBe(404);
    expect(fake.requests).toHaveLength(1);
  });

  it("replays an admin's new agent key, kept sealed, and refuses a malformed header", async () => {
    await createAgent({ aid: "keyed" });
    const make = (key: string, name = "ci") =>
      fetch(`${server.url}/agents/keyed/keys`, {
        method: "POST",
        headers: { ...adminHeaders, "idempotency-key": key },
        body: JSON.stringify({ name }),
      });
    // The draft's form, a structured-field string, is the same key as the bare one.
    const first = await make('"make-key-1"');
    expect(first.status).toBe(201);
    const made = await first.json();
    const again = await make("make-key-1");
    expect(again.status).toBe(201);
    expect(await again.json()).toEqual(made);
    const listed = await (
      await fetch(`${server.url}/agents/keyed/keys`, { headers: adminHeaders })
    ).json();
    expect(listed.keys ?? listed.items ?? listed).toHaveLength(1);
    const reused = await make("make-key-1", "other");
    expect(reused.status).toBe(422);
    expect(reused.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(await reused.json()).toMatchObject({ code: "idempotency_key_reused" });
    const malformed = await make("x".repeat(256));
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({
      code: "validation_failed",
      errors: [{ field: "Idempotency-Key" }],
    });
    if (running?.databaseUrl) {
      const sql = postgres(running.databaseUrl, { max: 1, onnotice: () => {} });
      try {
        const rows = await sql`SELECT body FROM idempotency_keys WHERE key = 'make-key-1'`;
        expect(rows).toHaveLength(1);
        expect(rows[0]?.body).not.toContain(made.key);
        expect(rows[0]?.body).toMatch(/^v1\./);
      } finally {
        await sql.end();
      }
    }
  });

  it("documents the header and its refusals on the operations that take it", async () => {
    const document = await (await fetch(`${server.url}/openapi.json`)).json();
    const create = document.paths["/v1/chat/completions"].post;
    expect(create.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ in: "header", name: "Idempotency-Key" })]),
    );
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(["409", "422"]));
    const chat = document.paths["/{aid}/chat"].get;
    expect(JSON.stringify(chat.parameters ?? [])).not.toContain("Idempotency-Key");
  });
});

async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 10_000) throw new Error("The condition did not come within 10 s.");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
