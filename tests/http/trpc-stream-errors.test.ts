import { createTRPCClient, httpBatchStreamLink, TRPCClientError } from "@trpc/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppRouter } from "@/server/routers";
import { DATABASE_KINDS } from "../helpers/database-kinds";
import type { FakeOpenAi } from "../helpers/fake-openai";
import { type ModelServer, startModelServer } from "../helpers/model-server";
import { type RunningServer, TEST_ADMIN_KEY } from "../helpers/server";

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };

/**
 * The dashboard's chat (`chat.stream` over /api/trpc, read with httpBatchStreamLink as the
 * dashboard reads it): a refusal keeps its tRPC code and HTTP status, as on REST, and is not
 * logged as an unexpected error. One model slot, so a second chat while one runs is a 503.
 */
describe.each(DATABASE_KINDS)("chat.stream refusals over /api/trpc on %s", (kind) => {
  let server: RunningServer;
  let fake: FakeOpenAi;
  let running: ModelServer | undefined;

  beforeAll(async () => {
    // One process: LLM_MAX_CONCURRENCY is each web worker's own cap.
    running = await startModelServer(kind, {
      LLM_MAX_CONCURRENCY: "1",
      WEB_CONCURRENCY: "1",
      SCHEDULER: "off",
    });
    ({ server, fake } = running);
    const created = await fetch(`${server.url}/agents`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ aid: "limited", quota: { message_limit_daily: 1 } }),
    });
    expect(created.status).toBe(201);
  });
  afterAll(() => running?.stop());

  const client = () =>
    createTRPCClient<AppRouter>({
      links: [httpBatchStreamLink({ url: `${server.url}/api/trpc`, headers: admin })],
    });

  /** Reads the whole reply; the error the stream ends with, if any. */
  async function chat(aid: string, q: string) {
    try {
      const events = await client().chat.stream.mutate({ aid, q, chat_id: "t" });
      const seen: string[] = [];
      for await (const event of events) seen.push(event.type);
      return { seen };
    } catch (error) {
      expect(error).toBeInstanceOf(TRPCClientError);
      const { data } = error as TRPCClientError<AppRouter>;
      return { code: data?.code, httpStatus: data?.httpStatus, problem: data?.problem };
    }
  }

  it("answers an unknown agent with NOT_FOUND (404)", async () => {
    expect(await chat("no-such-agent", "hello")).toMatchObject({
      code: "NOT_FOUND",
      httpStatus: 404,
      problem: { status: 404, code: "agent_not_found" },
    });
  });

  it("answers a spent quota with TOO_MANY_REQUESTS (429)", async () => {
    fake.behave({ kind: "reply", text: "First." });
    expect(await chat("limited", "one")).toEqual({ seen: ["start", "delta", "done"] });
    expect(await chat("limited", "two")).toMatchObject({
      code: "TOO_MANY_REQUESTS",
      httpStatus: 429,
      problem: { status: 429, code: "quota_exceeded", retry_after_s: expect.any(Number) },
    });
  });

  it("answers a full model with SERVICE_UNAVAILABLE (503), and logs none as unexpected", async () => {
    await fetch(`${server.url}/agents`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ aid: "busy" }),
    });
    // A slow reply holds the one model slot while the second chat comes.
    fake.behave({ kind: "tokens", tokens: 40, writes: 10, latencyMs: 1500 });
    const slow = chat("busy", "slow one");
    for (let waited = 0; fake.inFlight() === 0 && waited < 5000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fake.inFlight()).toBe(1);
    expect(await chat("busy", "second")).toMatchObject({
      code: "SERVICE_UNAVAILABLE",
      httpStatus: 503,
      problem: { status: 503, code: "service_unavailable" },
    });
    expect((await slow).seen).toContain("done");
    expect(server.output()).not.toMatch(/unexpected error/);
  });
});
