import { createOpenAI } from "@ai-sdk/openai";
import { APICallError, generateText, streamText } from "ai";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { adminApi, adminHeaders } from "../helpers/admin-api";
import { DATABASE_KINDS } from "../helpers/database-kinds";
import type { FakeOpenAi } from "../helpers/fake-openai";
import { type ModelServer, startModelServer } from "../helpers/model-server";
import { type RunningServer, TEST_ADMIN_KEY } from "../helpers/server";

/**
 * Agents through OpenAI's Responses API (POST /v1/responses and the reads of a kept response),
 * called by the official `openai` package and the AI SDK's OpenAI provider in responses mode,
 * against the built service, its model a fake OpenAI endpoint on loopback.
 */

const admin = adminHeaders;
const REPLY = "Hello from the fake model.";

describe.each(DATABASE_KINDS)("the Responses API on %s", (kind) => {
  let running: ModelServer | undefined;
  let server: RunningServer;
  let fake: FakeOpenAi;

  beforeAll(async () => {
    running = await startModelServer(kind, {
      LLM_MAX_RETRIES: "0",
      // Short, for the stalled stream's failure; the replies here come within milliseconds.
      LLM_TIMEOUT_MS: "3000",
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
  const openai = (apiKey = "anonymous") =>
    new OpenAI({ baseURL: `${server.url}/v1`, apiKey, maxRetries: 0 });
  const sentContents = () => (fake.requests.at(-1)?.messages ?? []).map((m) => [m.role, m.content]);

  it("answers with the agent's instructions first and the request's after them", async () => {
    await createAgent({ aid: "answerer", prompt: "You help with orders." });
    const response = await openai().responses.create({
      model: "answerer",
      instructions: "Answer in one sentence.",
      input: [
        { role: "user", content: "Where is my order?" },
        { role: "assistant", content: "It left yesterday." },
        { role: "developer", content: "Be kind." },
        { role: "user", content: [{ type: "input_text", text: "When will it arrive?" }] },
      ],
      temperature: 0.3,
      top_p: 0.9,
      max_output_tokens: 100,
      metadata: { ticket: "7" },
    });
    expect(response).toMatchObject({
      object: "response",
      status: "completed",
      model: "answerer",
      output_text: REPLY,
      instructions: "Answer in one sentence.",
      metadata: { ticket: "7" },
      usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
      temperature: 0.3,
      store: true,
    });
    expect(response.id).toMatch(/^resp_[0-9a-f]{32}$/);
    expect(sentContents()).toEqual([
      ["system", "You are answerer.\n\nYou help with orders."],
      ["system", "Answer in one sentence."],
      ["user", "Where is my order?"],
      ["assistant", "It left yesterday."],
      ["system", "Be kind."],
      ["user", "When will it arrive?"],
    ]);
    expect(fake.requests.at(-1)).toMatchObject({ temperature: 0.3, top_p: 0.9, max_tokens: 100 });
    expect((await agent("answerer")).quota).toMatchObject({
      message_count_total: 1,
      input_tokens_total: 10,
    });
    await vi.waitFor(
      async () => {
        const logged = await (
          await fetch(`${server.url}/requests?aid=answerer`, { headers: admin })
        ).json();
        expect(logged.requests.map((entry: { via: string }) => entry.via)).toEqual(["responses"]);
      },
      { timeout: 5000, interval: 250 },
    );
    const metrics = await (await fetch(`${server.url}/metrics`, { headers: admin })).text();
    expect(metrics).toMatch(/^agent_chat_requests_total\{outcome="ok",via="responses"\} [1-9]/m);
  });

  it("continues a kept response, reads it back, lists its input, and deletes it", async () => {
    await createAgent({ aid: "keeper" });
    const client = openai();
    const first = await client.responses.create({ model: "keeper", input: "Where is my order?" });
    fake.behave({ kind: "reply", text: "By Thursday." });
    const second = await client.responses.create({
      model: "keeper",
      previous_response_id: first.id,
      instructions: "Only this time.",
      input: "When will it arrive?",
    });
    expect(second.previous_response_id).toBe(first.id);
    expect(second.output_text).toBe("By Thursday.");
    fake.behave({ kind: "reply", text: "You're welcome." });
    await client.responses.create({
      model: "keeper",
      previous_response_id: second.id,
      input: "Thanks!",
    });
    // The whole conversation, without the earlier response's own instructions.
    expect(sentContents()).toEqual([
      ["system", "You are keeper."],
      ["user", "Where is my order?"],
      ["assistant", REPLY],
      ["user", "When will it arrive?"],
      ["assistant", "By Thursday."],
      ["user", "Thanks!"],
    ]);

    const read = await client.responses.retrieve(second.id);
    expect(read).toMatchObject({
      id: second.id,
      status: "completed",
      output_text: "By Thursday.",
      instructions: "Only this time.",
      usage: second.usage,
    });
    const items = [];
    for await (const item of client.responses.inputItems.list(second.id)) items.push(item);
    expect(items).toMatchObject([
      {
        type: "message",
        role: "user",
        content: [{ type: "input_text", text: "When will it arrive?" }],
      },
    ]);

    expect(await client.responses.delete(second.id)).toEqual({
      id: second.id,
      object: "response",
      deleted: true,
    });
    const gone = await client.responses.retrieve(second.id).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
    const again = await client.responses.delete(second.id).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it("keeps nothing with store: false, and keeps each caller's responses its own", async () => {
    await createAgent({ aid: "private", chat_access: "key" });
    const [mine, theirs] = [await keyOf("private"), await keyOf("private")];
    const unkept = await openai(mine).responses.create({
      model: "private",
      input: "Forget this.",
      store: false,
    });
    expect((unkept as unknown as { store: boolean }).store).toBe(false);
    expect(
      await openai(mine)
        .responses.retrieve(unkept.id)
        .catch((e: unknown) => e),
    ).toBeInstanceOf(OpenAI.NotFoundError);
    const continued = await openai(mine)
      .responses.create({ model: "private", previous_response_id: unkept.id, input: "And?" })
      .catch((e: unknown) => e);
    expect(continued).toBeInstanceOf(OpenAI.BadRequestError);
    expect((continued as InstanceType<typeof OpenAI.BadRequestError>).param).toBe(
      "previous_response_id",
    );

    const kept = await openai(mine).responses.create({ model: "private", input: "Keep this." });
    expect((await openai(mine).responses.retrieve(kept.id)).output_text).toBe(REPLY);
    expect(
      await openai(theirs)
        .responses.retrieve(kept.id)
        .catch((e: unknown) => e),
    ).toBeInstanceOf(OpenAI.NotFoundError);
    const borrowed = await openai(theirs)
      .responses.create({ model: "private", previous_response_id: kept.id, input: "Mine?" })
      .catch((e: unknown) => e);
    expect(borrowed).toBeInstanceOf(OpenAI.BadRequestError);
    expect((await openai(TEST_ADMIN_KEY).responses.retrieve(kept.id)).id).toBe(kept.id);
    const anonymous = await openai()
      .responses.create({ model: "private", input: "hi" })
      .catch((e: unknown) => e);
    // As for completions: an agent that takes its keys only is no model for anyone else.
    expect(anonymous).toBeInstanceOf(OpenAI.NotFoundError);

    // An agent's responses go with it.
    const deleted = await fetch(`${server.url}/agents/private`, {
      method: "DELETE",
      headers: admin,
    });
    expect(deleted.status).toBe(204);
    expect(
      await openai(TEST_ADMIN_KEY)
        .responses.retrieve(kept.id)
        .catch((e: unknown) => e),
    ).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it("streams OpenAI's typed events in order, numbered, that the SDK assembles", async () => {
    await createAgent({ aid: "streamer" });
    fake.behave({
      kind: "reply",
      text: "One, two, three, four, five.",
      chunks: 5,
      chunkDelayMs: 20,
    });
    const stream = openai().responses.stream({ model: "streamer", input: "Count to five." });
    const types: string[] = [];
    const numbers: number[] = [];
    let text = "";
    for await (const event of stream) {
      types.push(event.type);
      numbers.push(event.sequence_number);
      if (event.type === "response.output_text.delta") text += event.delta;
    }
    const final = await stream.finalResponse();
    expect(final.output_text).toBe("One, two, three, four, five.");
    expect(text).toBe("One, two, three, four, five.");
    expect(final.usage).toMatchObject({ input_tokens: 10, output_tokens: 5 });
    const distinct = types.filter((type, i) => type !== types[i - 1]);
    expect(distinct).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(types.filter((type) => type === "response.output_text.delta").length).toBeGreaterThan(1);
    expect(numbers).toEqual(numbers.map((_, i) => i));
    expect((await openai().responses.retrieve(final.id)).output_text).toBe(final.output_text);
    expect((await agent("streamer")).quota.message_count_total).toBe(1);
  });

  it("ends a stream that fails midway with response.failed, and gives the use back", async () => {
    await createAgent({ aid: "staller" });
    fake.behave({ kind: "stall", text: "partial answer" });
    const events: { type: string; response?: { status: string; error: unknown } }[] = [];
    const failure = await (async () => {
      for await (const event of openai().responses.stream({ model: "staller", input: "hi" }))
        events.push(event as (typeof events)[number]);
    })().catch((e: unknown) => e);
    const failed = events.at(-1);
    expect(failed?.type, String(failure)).toBe("response.failed");
    expect(failed?.response).toMatchObject({
      status: "failed",
      error: { code: "provider_timeout", message: expect.stringMatching(/did not answer/) },
    });
    expect((await agent("staller")).quota.message_count_total).toBe(0);

    // The provider's failure comes after response.created: the response fails, naming why.
    fake.behave({ kind: "error", status: 500 });
    const broken = [];
    for await (const event of await openai().responses.create({
      model: "staller",
      input: "hi",
      stream: true,
    }))
      broken.push(event);
    expect(broken.map((event) => event.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.failed",
    ]);
    expect(broken.at(-1)).toMatchObject({ response: { error: { code: "provider_error" } } });
    // A refusal before it keeps its own status.
    const missing = await openai()
      .responses.create({ model: "no-such-agent", input: "hi", stream: true })
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it("gives everything back when the client leaves mid-stream", async () => {
    await createAgent({ aid: "leaver" });
    fake.behave({ kind: "stall", text: "partial answer" });
    const controller = new AbortController();
    const stream = await openai().responses.create(
      { model: "leaver", input: "hi", stream: true },
      { signal: controller.signal },
    );
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next(); // response.created: the quota is taken
    expect((await agent("leaver")).quota.message_count_total).toBe(1);
    controller.abort();
    await vi.waitFor(
      async () => expect((await agent("leaver")).quota.message_count_total).toBe(0),
      { timeout: 5000, interval: 100 },
    );
    // Given back because the client left, not at the model's deadline.
    await vi.waitFor(
      async () => {
        const logged = await (
          await fetch(`${server.url}/requests?aid=leaver`, { headers: admin })
        ).json();
        expect(logged.requests.map((entry: { code: string }) => entry.code)).toEqual([
          "client_closed_request",
        ]);
      },
      { timeout: 5000, interval: 250 },
    );
  });

  it("serves the AI SDK's OpenAI provider in responses mode, whole and streamed", async () => {
    await createAgent({ aid: "ai-sdk" });
    const provider = createOpenAI({ baseURL: `${server.url}/v1`, apiKey: "anonymous" });
    const whole = await generateText({
      model: provider.responses("ai-sdk"),
      system: "Be brief.",
      prompt: "Hello?",
      maxRetries: 0,
    });
    expect(whole.text).toBe(REPLY);
    expect(whole.usage).toMatchObject({ inputTokens: 10, outputTokens: 5, totalTokens: 15 });
    expect(sentContents()).toEqual([
      ["system", "You are ai-sdk."],
      ["system", "Be brief."],
      ["user", "Hello?"],
    ]);

    fake.behave({ kind: "reply", text: "Streamed in pieces.", chunks: 3 });
    const streamed = streamText({
      model: provider.responses("ai-sdk"),
      prompt: "Stream?",
      maxRetries: 0,
    });
    let text = "";
    for await (const piece of streamed.textStream) text += piece;
    expect(text).toBe("Streamed in pieces.");
    expect(await streamed.usage).toMatchObject({ inputTokens: 10, outputTokens: 5 });

    const missing = await generateText({
      model: provider.responses("no-such-agent"),
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
        .responses.create({ model: "strict", input: "hi", ...body } as never)
        .catch((e: unknown) => e);
      expect(error, JSON.stringify(body)).toBeInstanceOf(OpenAI.BadRequestError);
      const { param, message } = error as InstanceType<typeof OpenAI.BadRequestError>;
      expect(message.length, param ?? "").toBeGreaterThan(20);
      return param;
    };
    expect(
      await refused({ tools: [{ type: "function", name: "f", parameters: {}, strict: true }] }),
    ).toBe("tools");
    expect(await refused({ background: true, store: false })).toBe("background");
    expect(await refused({ reasoning: { effort: "low" } })).toBe("reasoning");
    expect(await refused({ max_output_tokens: 501 })).toBe("max_output_tokens");
    expect(await refused({ text: { format: { type: "json_object" } } })).toBe("text.format.type");
    expect(await refused({ conversation: "conv_1" })).toBe("conversation");
    expect(await refused({ input: [] })).toBe("input");
    expect(
      await refused({
        input: [{ role: "user", content: [{ type: "input_image", image_url: "x" }] }],
      }),
    ).toBe("input[0].content");
    expect(
      await refused({ input: [{ type: "function_call_output", call_id: "c", output: "x" }] }),
    ).toMatch(/^input\[0\]/);
    expect(
      await refused({
        input: [
          { role: "user", content: "hi" },
          { role: "assistant", content: "prefill" },
        ],
      }),
    ).toBe("input[1].role");
    expect(await refused({ input: "nul \u0000 inside" })).toBe("input");
    expect(fake.requests).toEqual([]);
    expect((await agent("strict")).quota.message_count_total).toBe(0);

    const missing = await openai()
      .responses.create({ model: "no-such-agent", input: "hi" })
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect((missing as InstanceType<typeof OpenAI.NotFoundError>).code).toBe("model_not_found");
  });

  it("counts exactly 50 of 200 concurrent responses against a total limit of 50", async () => {
    await createAgent({ aid: "contended", quota: { message_limit_total: 50 } });
    fake.behave({ kind: "reply", text: REPLY, delayMs: 20 });
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const request = { model: "contended", input: `question ${i}` };
        const answer =
          i % 2 === 0
            ? openai().responses.stream(request).finalResponse()
            : openai().responses.create(request);
        return answer.then(
          (response) => {
            expect(response.output_text).toBe(REPLY);
            return "replied";
          },
          (error: unknown) => {
            expect(error).toBeInstanceOf(OpenAI.RateLimitError);
            expect((error as InstanceType<typeof OpenAI.RateLimitError>).type).toBe(
              "insufficient_quota",
            );
            return "refused";
          },
        );
      }),
    );
    const tally: Record<string, number> = {};
    for (const outcome of outcomes) tally[outcome] = (tally[outcome] ?? 0) + 1;
    expect(tally).toEqual({ replied: 50, refused: 150 });
    expect(fake.requests.length).toBe(50);
    expect((await agent("contended")).quota.message_count_total).toBe(50);
  });
});
