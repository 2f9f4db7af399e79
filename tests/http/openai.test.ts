import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { APICallError, generateText, streamText } from "ai";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { adminApi, adminHeaders } from "../helpers/admin-api";
import { DATABASE_KINDS } from "../helpers/database-kinds";
import { type FakeOpenAi, repliesAfter } from "../helpers/fake-openai";
import { type ModelServer, startModelServer } from "../helpers/model-server";
import { type RunningServer, TEST_ADMIN_KEY } from "../helpers/server";

/**
 * Agents as OpenAI-compatible models (GET /v1/models, POST /v1/chat/completions), called by the
 * clients users call them with: the official `openai` package and the AI SDK's OpenAI-compatible
 * provider, over HTTP against the built service, its model a fake OpenAI endpoint on loopback.
 * The SDKs' own retries are off (maxRetries 0), so that each refusal is seen once.
 */

const admin = adminHeaders;
const REPLY = "Hello from the fake model.";

describe.each(DATABASE_KINDS)("the OpenAI-compatible API on %s", (kind) => {
  let running: ModelServer | undefined;
  let server: RunningServer;
  let fake: FakeOpenAi;

  beforeAll(async () => {
    running = await startModelServer(kind, {
      LLM_MAX_RETRIES: "0",
      LLM_TIMEOUT_MS: "5000",
      // Room for the 200 concurrent completions: the quota is what is measured, not the cap.
      LLM_MAX_CONCURRENCY: "300",
      LLM_MAX_OUTPUT_TOKENS: "500",
      SCHEDULER: "off",
    });
    ({ server, fake } = running);
  });
  afterAll(() => running?.stop());
  beforeEach(() => {
    fake.requests.splice(0);
    fake.behave({ kind: "reply", text: REPLY });
  });

  const { createAgent, keyOf, agent } = adminApi(() => server.url, "sdk");
  /** The official client; anonymous callers send a placeholder key (the client needs one). */
  const openai = (apiKey = "anonymous") =>
    new OpenAI({ baseURL: `${server.url}/v1`, apiKey, maxRetries: 0 });
  const ask = (content: string) => [{ role: "user" as const, content }];

  it("lists only the agents each caller may chat with", async () => {
    await createAgent({ aid: "open-a" });
    await createAgent({ aid: "closed-b", chat_access: "key" });
    const key = await keyOf("closed-b");
    const ids = async (client: OpenAI) => {
      const found: string[] = [];
      for await (const model of client.models.list()) found.push(model.id);
      return found;
    };
    const anonymous = await ids(openai());
    expect(anonymous).toContain("open-a");
    expect(anonymous).not.toContain("closed-b");
    expect(await ids(openai(key))).toEqual(["closed-b"]);
    const all = await ids(openai(TEST_ADMIN_KEY));
    expect(all).toEqual(expect.arrayContaining(["open-a", "closed-b"]));

    const one = await openai(key).models.retrieve("closed-b");
    expect(one).toMatchObject({ id: "closed-b", object: "model", owned_by: "agent-service" });
    expect(one.created).toBeGreaterThan(1_700_000_000);
    // Not open to this caller: as if it did not exist.
    const hidden = await openai()
      .models.retrieve("closed-b")
      .catch((error: unknown) => error);
    expect(hidden).toBeInstanceOf(OpenAI.NotFoundError);
    expect((hidden as InstanceType<typeof OpenAI.NotFoundError>).code).toBe("model_not_found");
    // A key that is no key of any agent is refused, not taken for an anonymous caller.
    const revoked = await openai("ak_000000000000_".padEnd(59, "A"))
      .models.list()
      .catch((error: unknown) => error);
    expect(revoked).toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it("pages the models by after, in aid order", async () => {
    for (const aid of ["page-a", "page-b", "page-c"]) await createAgent({ aid });
    const page = async (query: string) =>
      (await fetch(`${server.url}/v1/models?${query}`, { headers: admin })).json();
    const first = await page("limit=2&after=page-");
    expect(first.data.map((m: { id: string }) => m.id)).toEqual(["page-a", "page-b"]);
    expect(first).toMatchObject({ has_more: true, first_id: "page-a", last_id: "page-b" });
    const second = await page(`limit=2&after=${first.last_id}`);
    expect(second.data[0].id).toBe("page-c");
  });

  it("answers a completion with the agent's instructions first, the caller's after", async () => {
    await createAgent({ aid: "answerer", prompt: "You help with orders." });
    const response = await openai()
      .chat.completions.create({
        model: "answerer",
        messages: [
          { role: "system", content: "Answer in one sentence." },
          { role: "user", content: "Where is my order?" },
          { role: "assistant", content: "It left yesterday." },
          { role: "developer", content: "Be kind." },
          { role: "user", content: [{ type: "text", text: "When will it arrive?" }] },
        ],
        temperature: 0.3,
        top_p: 0.9,
        stop: ["END"],
        seed: 7,
        user: "customer-42",
        max_tokens: 100,
      })
      .withResponse();
    const completion = response.data;
    expect(completion).toMatchObject({
      object: "chat.completion",
      model: "answerer",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: REPLY },
          finish_reason: "stop",
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(response.request_id).toMatch(/^[0-9a-f-]{36}$/);

    const sent = fake.requests.at(-1);
    expect(sent?.messages).toEqual([
      { role: "system", content: "You are answerer.\n\nYou help with orders." },
      { role: "system", content: "Answer in one sentence." },
      { role: "user", content: "Where is my order?" },
      { role: "assistant", content: "It left yesterday." },
      { role: "system", content: "Be kind." },
      { role: "user", content: "When will it arrive?" },
    ]);
    expect(sent).toMatchObject({
      temperature: 0.3,
      top_p: 0.9,
      stop: ["END"],
      seed: 7,
      max_tokens: 100,
    });
    // The end user's id is the client's: it is not sent on to the provider.
    expect(sent).not.toHaveProperty("user");

    // One completion is one message, its tokens counted; the exchange is kept in `openai`.
    const { quota } = await agent("answerer");
    expect(quota).toMatchObject({ message_count_total: 1, input_tokens_total: 10 });
    const { threads } = await (
      await fetch(`${server.url}/agents/answerer/threads`, { headers: admin })
    ).json();
    expect(threads).toHaveLength(1);
    expect(threads[0]).toMatchObject({ chat_id: "openai", message_count: 2 });
    const { messages } = await (
      await fetch(
        `${server.url}/agents/answerer/threads/openai/messages?caller=${encodeURIComponent(threads[0].caller)}`,
        { headers: admin },
      )
    ).json();
    expect(messages.map((m: { content: string }) => m.content)).toEqual([
      "When will it arrive?",
      REPLY,
    ]);
  });

  it("says the reply was cut when the model stopped at its limit", async () => {
    await createAgent({ aid: "cut-short" });
    fake.behave({ kind: "reply", text: "A long", finishReason: "length" });
    const completion = await openai().chat.completions.create({
      model: "cut-short",
      messages: ask("Tell me everything."),
    });
    expect(completion.choices[0]?.finish_reason).toBe("length");
  });

  it("streams chunks the SDK assembles, then the usage, then [DONE]", async () => {
    await createAgent({ aid: "streamer" });
    fake.behave({
      kind: "reply",
      text: "One, two, three, four, five.",
      chunks: 5,
      chunkDelayMs: 20,
    });
    const stream = await openai().chat.completions.create({
      model: "streamer",
      messages: ask("Count to five."),
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: "assistant", content: "" });
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("");
    expect(text).toBe("One, two, three, four, five.");
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta.content).length).toBeGreaterThan(1);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe("stop");
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect((await agent("streamer")).quota.message_count_total).toBe(1);

    // Without include_usage, no usage at all, and the raw stream ends with [DONE].
    const raw = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "streamer", messages: ask("again"), stream: true }),
    });
    expect(raw.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const body = await raw.text();
    expect(body.endsWith("data: [DONE]\n\n")).toBe(true);
    expect(body).not.toContain('"usage"');
  });

  it("serves the AI SDK's OpenAI-compatible provider, whole and streamed", async () => {
    await createAgent({ aid: "ai-sdk" });
    const provider = createOpenAICompatible({
      name: "agent-service",
      baseURL: `${server.url}/v1`,
      apiKey: "anonymous",
      includeUsage: true,
    });
    const whole = await generateText({
      model: provider("ai-sdk"),
      system: "Be brief.",
      prompt: "Hello?",
      maxRetries: 0,
    });
    expect(whole.text).toBe(REPLY);
    expect(whole.finishReason).toBe("stop");
    expect(whole.usage).toMatchObject({ inputTokens: 10, outputTokens: 5, totalTokens: 15 });

    fake.behave({ kind: "reply", text: "Streamed in pieces.", chunks: 3 });
    const streamed = streamText({ model: provider("ai-sdk"), prompt: "Stream?", maxRetries: 0 });
    let text = "";
    for await (const piece of streamed.textStream) text += piece;
    expect(text).toBe("Streamed in pieces.");
    expect(await streamed.usage).toMatchObject({ inputTokens: 10, outputTokens: 5 });

    const missing = await generateText({
      model: provider("no-such-agent"),
      prompt: "Hello?",
      maxRetries: 0,
    }).catch((error: unknown) => error);
    expect(APICallError.isInstance(missing)).toBe(true);
    expect((missing as APICallError).statusCode).toBe(404);
  });

  it("refuses what it cannot honour with 400 naming the parameter, counting nothing", async () => {
    await createAgent({ aid: "strict" });
    const refused = async (body: Record<string, unknown>) => {
      const error = await openai()
        .chat.completions.create({ model: "strict", messages: ask("hi"), ...body } as never)
        .catch((e: unknown) => e);
      expect(error, JSON.stringify(body)).toBeInstanceOf(OpenAI.BadRequestError);
      return (error as InstanceType<typeof OpenAI.BadRequestError>).param;
    };
    expect(await refused({ n: 2 })).toBe("n");
    expect(
      await refused({
        tools: [{ type: "function", function: { name: "f", parameters: { type: "object" } } }],
      }),
    ).toBe("tools");
    expect(await refused({ max_tokens: 501 })).toBe("max_tokens");
    expect(await refused({ logprobs: true })).toBe("logprobs");
    expect(await refused({ logit_bias: { "50256": -100 } })).toBe("logit_bias");
    expect(await refused({ stream_options: { include_usage: true } })).toBe("stream_options");
    expect(await refused({ messages: [{ role: "tool", content: "x", tool_call_id: "1" }] })).toBe(
      "messages[0].role",
    );
    expect(
      await refused({
        messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "x" } }] }],
      }),
    ).toBe("messages[0].content");
    expect(
      await refused({ messages: [...ask("hi"), { role: "assistant", content: "prefill" }] }),
    ).toBe("messages[1].role");
    expect(await refused({ messages: ask("nul \u0000 inside") })).toBe("messages[0].content");
    expect(fake.requests).toEqual([]);
    expect((await agent("strict")).quota.message_count_total).toBe(0);
  });

  it("refuses a conversation past COMPLETIONS_MAX_INPUT_CHARS with 400 naming messages", async () => {
    await createAgent({ aid: "bounded" });
    const send = (messages: unknown, stream = false) =>
      fetch(`${server.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "bounded", messages, stream }),
      });
    // 240,000 characters: within the body's 256 KiB, past the 100,000 the default allows.
    const long = [
      { role: "user", content: "x".repeat(120_000) },
      { role: "assistant", content: "y".repeat(110_000) },
      { role: "user", content: [{ type: "text", text: "z".repeat(10_000) }] },
    ];
    for (const stream of [false, true]) {
      const refused = await send(long, stream);
      expect(refused.status).toBe(400);
      const { error } = await refused.json();
      expect(error).toMatchObject({
        type: "invalid_request_error",
        param: "messages",
        code: "validation_failed",
      });
      expect(error.message).toContain("240,000 characters");
      expect(error.message).toContain("100,000");
    }
    const viaSdk = await openai()
      .chat.completions.create({ model: "bounded", messages: long as never })
      .catch((e: unknown) => e);
    expect(viaSdk).toBeInstanceOf(OpenAI.BadRequestError);
    expect((viaSdk as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("messages");
    expect(fake.requests).toEqual([]);
    expect((await agent("bounded")).quota.message_count_total).toBe(0);

    // At the bound exactly, the conversation is taken and sent whole.
    const atBound = [
      { role: "user", content: "x".repeat(60_000) },
      { role: "assistant", content: "y".repeat(30_000) },
      { role: "user", content: "z".repeat(10_000) },
    ];
    expect((await send(atBound)).status).toBe(200);
    const sent = fake.requests.at(-1)?.messages.slice(1) ?? [];
    expect(sent.map((m) => (m.content as string).length)).toEqual([60_000, 30_000, 10_000]);
  });

  it("sends a long question whole and stores it cut as chat would take it", async () => {
    await createAgent({ aid: "long-question" });
    const question = `${"q".repeat(9_999)}😀${"r".repeat(40_000)}`;
    const completion = await openai().chat.completions.create({
      model: "long-question",
      messages: ask(question),
    });
    expect(completion.choices[0]?.message.content).toBe(REPLY);
    expect(fake.requests.at(-1)?.messages.at(-1)).toEqual({ role: "user", content: question });
    const { threads } = await (
      await fetch(`${server.url}/agents/long-question/threads`, { headers: admin })
    ).json();
    const { messages } = await (
      await fetch(
        `${server.url}/agents/long-question/threads/openai/messages?caller=${encodeURIComponent(threads[0].caller)}`,
        { headers: admin },
      )
    ).json();
    // GET /{aid}/chat takes 10,000 characters: the cut keeps the surrogate pair whole, so it is
    // one short of that here.
    expect(messages.map((m: { content: string }) => m.content)).toEqual(["q".repeat(9_999), REPLY]);
  });

  it("holds each completion's input against a token budget: no more start than it holds", async () => {
    // "You are held-input." (19 characters) and a question of 381: 400 characters, 100 tokens
    // held by each completion until it ends; a budget of 500 holds five.
    await createAgent({
      aid: "held-input",
      rate_limit_rpm: null,
      quota: { token_limit_daily: 500, message_limit_daily: null, message_limit_monthly: null },
    });
    const question = (i: number) => `${String(i).padStart(3, "0")}${"x".repeat(378)}`;
    // Replies wait until the fifth call has reached the model, and each counts more than it
    // held: a reply stored sooner, or one that gave tokens back, would change how many start.
    const usage = { prompt_tokens: 100, completion_tokens: 5 };
    fake.behaveBy(repliesAfter(5, { kind: "reply", text: REPLY, usage }));
    const answers = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const response = await fetch(`${server.url}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            model: "held-input",
            messages: ask(question(i)),
            stream: i % 2 === 0,
          }),
        });
        return { status: response.status, body: await response.text() };
      }),
    );
    const tally: Record<number, number> = {};
    for (const { status } of answers) tally[status] = (tally[status] ?? 0) + 1;
    expect(tally).toEqual({ 200: 5, 429: 15 });
    expect(fake.requests).toHaveLength(5);
    const refused = JSON.parse(answers.find(({ status }) => status === 429)?.body ?? "{}");
    expect(refused.error).toMatchObject({ type: "insufficient_quota", code: "quota_exceeded" });
    expect(refused.error.message).toMatch(/Daily token limit reached for agent 'held-input': 500/);
    expect(refused.error.message).toContain("estimated at 100");
    // Each hold settled to its reply's usage: 5 × 105 counted, nothing held any more.
    const { quota } = await agent("held-input");
    expect(quota).toMatchObject({ input_tokens_daily: 500, output_tokens_daily: 25 });
    expect(quota.message_count_daily).toBe(5);
  });

  it("gives a completion's hold back when its reply is not delivered", async () => {
    // Room for one hold: "You are given-back." and "hi", 21 characters, 6 tokens.
    await createAgent({ aid: "given-back", quota: { token_limit_total: 6 } });
    fake.behave({ kind: "error", status: 500 });
    const failed = await openai()
      .chat.completions.create({ model: "given-back", messages: ask("hi") })
      .catch((e: unknown) => e);
    expect((failed as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    fake.behave({ kind: "reply", text: REPLY, usage: { prompt_tokens: 3, completion_tokens: 2 } });
    const answered = await openai().chat.completions.create({
      model: "given-back",
      messages: ask("hi"),
    });
    expect(answered.usage?.total_tokens).toBe(5);
    // 5 used and 6 to hold do not fit in 6.
    const spent = await openai()
      .chat.completions.create({ model: "given-back", messages: ask("hi") })
      .catch((e: unknown) => e);
    expect(spent).toBeInstanceOf(OpenAI.RateLimitError);
  });

  it("raises the SDK's own errors: 404, 401, 429 with Retry-After, 502", async () => {
    const missing = await openai()
      .chat.completions.create({ model: "gpt-4o", messages: ask("hi") })
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect((missing as InstanceType<typeof OpenAI.APIError>).code).toBe("model_not_found");

    await createAgent({ aid: "members", chat_access: "key" });
    const keyless = await openai()
      .chat.completions.create({ model: "members", messages: ask("hi") })
      .catch((e: unknown) => e);
    // An agent the caller may not use looks missing, as GET /v1/models has it.
    expect(keyless).toBeInstanceOf(OpenAI.NotFoundError);
    const wrongKey = await openai(`ak_000000000000_${"A".repeat(43)}`)
      .chat.completions.create({ model: "members", messages: ask("hi") })
      .catch((e: unknown) => e);
    expect(wrongKey).toBeInstanceOf(OpenAI.AuthenticationError);
    const member = await openai(await keyOf("members")).chat.completions.create({
      model: "members",
      messages: ask("hi"),
    });
    expect(member.choices[0]?.message.content).toBe(REPLY);

    await createAgent({ aid: "one-a-day", quota: { message_limit_daily: 1 } });
    await openai().chat.completions.create({ model: "one-a-day", messages: ask("first") });
    const spent = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "one-a-day", messages: ask("second") }),
    });
    expect(spent.status).toBe(429);
    expect(Number(spent.headers.get("retry-after"))).toBeGreaterThan(0);
    // Hours away: OpenAI's clients are told not to retry it at once.
    expect(spent.headers.get("x-should-retry")).toBe("false");
    expect((await spent.json()).error).toMatchObject({
      type: "insufficient_quota",
      code: "quota_exceeded",
    });
    const viaSdk = await openai()
      .chat.completions.create({ model: "one-a-day", messages: ask("third") })
      .catch((e: unknown) => e);
    expect(viaSdk).toBeInstanceOf(OpenAI.RateLimitError);

    await createAgent({ aid: "rate-limited", rate_limit_rpm: 1 });
    const first = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "rate-limited", messages: ask("one") }),
    });
    expect(first.headers.get("x-ratelimit-limit-requests")).toBe("1");
    expect(first.headers.get("x-ratelimit-remaining-requests")).toBe("0");
    expect(first.headers.get("x-ratelimit-reset-requests")).toMatch(/^\d+s$/);
    const second = await openai()
      .chat.completions.create({ model: "rate-limited", messages: ask("two") })
      .catch((e: unknown) => e);
    expect(second).toBeInstanceOf(OpenAI.RateLimitError);
    expect((second as InstanceType<typeof OpenAI.APIError>).code).toBe("rate_limit_exceeded");

    await createAgent({ aid: "broken-model" });
    fake.behave({ kind: "error", status: 500 });
    const failed = await openai()
      .chat.completions.create({ model: "broken-model", messages: ask("hi") })
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(OpenAI.InternalServerError);
    expect((failed as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((await agent("broken-model")).quota.message_count_total).toBe(0);
  });

  it("gives everything back when the client leaves mid-stream", async () => {
    await createAgent({ aid: "leaver" });
    fake.behave({ kind: "stall", text: "partial answer" });
    const controller = new AbortController();
    const stream = await openai().chat.completions.create(
      { model: "leaver", messages: ask("hi"), stream: true },
      { signal: controller.signal },
    );
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next(); // the role chunk: the quota is taken
    expect((await agent("leaver")).quota.message_count_total).toBe(1);
    controller.abort();
    let count = 1;
    for (let i = 0; i < 50 && count !== 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      count = (await agent("leaver")).quota.message_count_total;
    }
    expect(count).toBe(0);
  });

  it("counts exactly 50 of 200 concurrent completions against a total limit of 50", async () => {
    await createAgent({ aid: "contended", quota: { message_limit_total: 50 } });
    fake.behave({ kind: "reply", text: REPLY, delayMs: 20 });
    const statuses = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const response = await fetch(`${server.url}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            model: "contended",
            messages: ask(`question ${i}`),
            stream: i % 2 === 0,
          }),
        });
        const body = await response.text();
        if (response.status === 429) expect(JSON.parse(body).error.type).toBe("insufficient_quota");
        else if (response.status === 200 && i % 2 === 0) expect(body).toMatch(/data: \[DONE\]/);
        return response.status;
      }),
    );
    const tally: Record<number, number> = {};
    for (const status of statuses) tally[status] = (tally[status] ?? 0) + 1;
    expect(tally).toEqual({ 200: 50, 429: 150 });
    expect(fake.requests.length).toBe(50);
    expect((await agent("contended")).quota.message_count_total).toBe(50);
  });

  it("refuses hostile bodies in OpenAI's form and takes a placeholder key as no key", async () => {
    await createAgent({ aid: "hostile" });
    const send = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${server.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body,
      });
    const huge = await send(
      JSON.stringify({ model: "hostile", messages: ask("x".repeat(300 * 1024)) }),
    );
    expect(huge.status).toBe(413);
    expect((await huge.json()).error.type).toBe("invalid_request_error");
    const many = await send(
      JSON.stringify({
        model: "hostile",
        messages: Array.from({ length: 2001 }, () => ask("x")[0]),
      }),
    );
    expect(many.status).toBe(400);
    expect((await many.json()).error.param).toBe("messages");
    const notJson = await send("{", { "content-type": "text/plain" });
    expect(notJson.status).toBe(415);
    const wrongMethod = await fetch(`${server.url}/v1/chat/completions`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("POST");
    expect(await wrongMethod.json()).toMatchObject({ error: { code: "method_not_allowed" } });

    // A placeholder key is no guess at the admin key: however many, the admin key still works
    // from the same client.
    for (let i = 0; i < 8; i++)
      expect(
        (
          await send(JSON.stringify({ model: "hostile", messages: ask("hi") }), {
            authorization: "Bearer anonymous",
          })
        ).status,
      ).toBe(200);
    expect((await fetch(`${server.url}/agents`, { headers: admin })).status).toBe(200);
  });
});

describe.each(DATABASE_KINDS)("the OpenAI-compatible API at its caps on %s", (kind) => {
  let running: ModelServer | undefined;

  beforeAll(async () => {
    running = await startModelServer(kind, {
      LLM_MAX_RETRIES: "0",
      LLM_TIMEOUT_MS: "1500",
      LLM_MAX_CONCURRENCY: "1",
      WEB_CONCURRENCY: "1",
      SCHEDULER: "off",
    });
    await fetch(`${running.server.url}/agents`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ aid: "capped" }),
    });
  });
  afterAll(() => running?.stop());

  it("answers 503 while every model slot is taken, 504 on a timeout, also mid-stream", async () => {
    const { server, fake } = running as ModelServer;
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "anonymous", maxRetries: 0 });
    fake.behave({ kind: "stall", text: "partial answer" });
    const stream = await client.chat.completions.create({
      model: "capped",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
    });
    const busy = await client.chat.completions
      .create({ model: "capped", messages: [{ role: "user", content: "too" }] })
      .catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(OpenAI.InternalServerError);
    expect((busy as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
    // The stalled stream fails at the deadline: the SDK raises the error the stream carries.
    const midway = await (async () => {
      for await (const _ of stream) {
      }
    })().catch((e: unknown) => e);
    expect(midway).toBeInstanceOf(OpenAI.APIError);
    expect((midway as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({
      type: "server_error",
      code: "provider_timeout",
    });

    fake.behave({ kind: "hang" });
    const late = await client.chat.completions
      .create({ model: "capped", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect((late as InstanceType<typeof OpenAI.APIError>).status).toBe(504);
  });
});
