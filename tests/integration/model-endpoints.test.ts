import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { agents, modelCircuits, requestLog } from "@/db/schema";
import { authKeys } from "@/server/auth";
import { fixedClock } from "@/server/kit/clock";
import { createModelRuntime, type ModelRuntime } from "@/server/model-call";
import { requestLogOf } from "@/server/request-log";
import { callerFor, problemOf, TEST_ADMIN_KEY, testConfig } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";
import { type FakeOpenAi, startFakeOpenAi } from "../helpers/fake-openai";

const KEY_A = "sk-endpoint-a-0123456789abcdef";
const KEY_B = "sk-endpoint-b-0123456789ABCDEF";
const LISTED = { MODEL_ALLOWED_HOSTS: "127.0.0.1" };

/**
 * Issue #48, item 4: an agent's own model endpoints, tried in order on a connection error,
 * timeout, 429 or 5xx before the first token; their keys sealed and never shown; circuits in the
 * database that every runtime (every worker and instance) reads. Two real servers on loopback.
 */
describe.each(DATABASE_KINDS)("model endpoints on %s", (kind) => {
  const clock = fixedClock("2026-11-29T08:00:00Z");
  const database = useTestDatabase(kind, { clock, start: "2026-11-29T08:00:00Z" });
  let first: FakeOpenAi | undefined;
  let second: FakeOpenAi | undefined;
  const runtimes: ModelRuntime[] = [];
  beforeAll(async () => {
    [first, second] = await Promise.all([startFakeOpenAi(), startFakeOpenAi()]);
  });
  afterAll(async () => {
    await Promise.all(runtimes.map((runtime) => runtime.endpoints.connections.close()));
    await Promise.all([first?.close(), second?.close()]);
  });
  beforeEach(() => {
    for (const fake of [a(), b()]) {
      fake.requests.splice(0);
      fake.headers.splice(0);
      fake.resetCounters();
    }
    a().behave({ kind: "reply", text: "from a" });
    b().behave({ kind: "reply", text: "from b" });
  });
  const a = () => first as FakeOpenAi;
  const b = () => second as FakeOpenAi;

  /** A runtime as a worker has one; with no LLM_BASE_URL, the configured provider is echo. */
  const runtime = (env: Record<string, string> = {}) => {
    const made = createModelRuntime(
      testConfig({ LLM_MAX_RETRIES: "0", MODEL_CIRCUIT_FAILURES: "2", ...LISTED, ...env }),
      { endpointKey: authKeys(TEST_ADMIN_KEY).endpointKey },
    );
    runtimes.push(made);
    return made;
  };
  const caller = (model?: ModelRuntime, env: Record<string, string> = {}) =>
    callerFor(database().db, { clock, model, config: testConfig({ ...LISTED, ...env }) });
  const endpoints = (options: { timeoutA?: number } = {}) => [
    {
      name: "primary",
      base_url: a().baseUrl,
      model: "model-a",
      api_key: KEY_A,
      ...(options.timeoutA ? { timeout_ms: options.timeoutA } : {}),
    },
    { name: "backup", base_url: b().baseUrl, model: "model-b", api_key: KEY_B },
  ];
  const agent = (aid: string, list: unknown[] = endpoints()) =>
    caller().agents.upsert({ aid, model_endpoints: list } as { aid: string });

  it("seals each key, never shows it, keeps it on its origin, sends it to its endpoint", async () => {
    const saved = await agent("sealed");
    expect(saved.agent.model_endpoints).toEqual([
      {
        name: "primary",
        base_url: a().baseUrl,
        model: "model-a",
        api_key: { secret: true, hint: "…cdef" },
        api_key_env: null,
        timeout_ms: null,
      },
      {
        name: "backup",
        base_url: b().baseUrl,
        model: "model-b",
        api_key: { secret: true, hint: "…CDEF" },
        api_key_env: null,
        timeout_ms: null,
      },
    ]);
    const everywhere = JSON.stringify([
      saved,
      await caller().agents.get({ aid: "sealed" }),
      await caller().agents.list({}),
      await database().db.select().from(agents),
    ]);
    expect(everywhere).not.toContain("sk-endpoint");

    // Sent back as shown, each key is kept, and each still goes to its own endpoint only.
    await caller().agents.upsert({ aid: "sealed", model_endpoints: saved.agent.model_endpoints });
    a().behave({ kind: "error", status: 503 });
    const reply = await caller(runtime()).chat.send({ aid: "sealed", q: "hello" });
    expect(reply).toMatchObject({ reply: "from b", model: "model-b", endpoint: "backup" });
    expect(a().requests.map((r) => r.model)).toEqual(["model-a"]);
    expect(b().requests.map((r) => r.model)).toEqual(["model-b"]);
    expect(a().headers.map((h) => h.authorization)).toEqual([`Bearer ${KEY_A}`]);
    expect(b().headers.map((h) => h.authorization)).toEqual([`Bearer ${KEY_B}`]);

    const moved = await problemOf(
      caller().agents.upsert({
        aid: "sealed",
        model_endpoints: [
          { name: "primary", base_url: b().baseUrl, model: "m", api_key: { secret: true } },
        ],
      }),
    );
    expect(moved).toMatchObject({
      status: 400,
      errors: [
        {
          field: "model_endpoints.0.api_key",
          detail: "cannot keep its stored key for another origin; send the key again",
        },
      ],
    });
  });

  it("refuses endpoints where no model call may go, and keys it cannot read", async () => {
    const refused = await problemOf(
      callerFor(database().db, { clock }).agents.upsert({
        aid: "nowhere",
        model_endpoints: [
          { name: "local", base_url: a().baseUrl, model: "m" },
          { name: "metadata", base_url: "http://169.254.169.254/v1", model: "m" },
          {
            name: "env",
            base_url: "https://api.example.com/v1",
            model: "m",
            api_key_env: "MODEL_UNSET_KEY",
          },
          { name: "creds", base_url: "https://user:pw@api.example.com/v1", model: "m" },
        ],
      }),
    );
    expect(refused.status).toBe(400);
    expect(refused.errors?.map((e) => e.field)).toEqual(["model_endpoints.3.base_url"]);
    const hosts = await problemOf(
      callerFor(database().db, { clock }).agents.upsert({
        aid: "nowhere",
        model_endpoints: [
          { name: "local", base_url: a().baseUrl, model: "m" },
          { name: "metadata", base_url: "http://169.254.169.254/v1", model: "m" },
          {
            name: "env",
            base_url: "https://api.example.com/v1",
            model: "m",
            api_key_env: "MODEL_UNSET_KEY",
          },
        ],
      }),
    );
    expect(hosts.errors).toEqual([
      {
        field: "model_endpoints.0.base_url",
        detail: expect.stringContaining("which MODEL_ALLOWED_HOSTS does not list"),
      },
      {
        field: "model_endpoints.1.base_url",
        detail: expect.stringContaining("a cloud metadata address, which is never allowed"),
      },
      {
        field: "model_endpoints.2.api_key_env",
        detail: "names MODEL_UNSET_KEY, which is not set on this server",
      },
    ]);
    expect(await database().db.select().from(agents)).toEqual([]);
  });

  it("falls back on 500, 429 and a hang before the first token; not on 401", async () => {
    await agent("falls", endpoints({ timeoutA: 300 }));
    const model = runtime({ MODEL_CIRCUIT_FAILURES: "100" });
    for (const behaviour of [
      { kind: "error", status: 500 },
      { kind: "error", status: 429 },
      { kind: "hang" },
    ] as const) {
      a().behave(behaviour);
      const reply = await caller(model).chat.send({ aid: "falls", q: behaviour.kind });
      expect(reply).toMatchObject({ reply: "from b", endpoint: "backup", model: "model-b" });
      // Streamed, the same: the first token comes from the second endpoint.
      const streamed = await caller(model).chat.stream({ aid: "falls", q: "streamed" });
      const pieces: unknown[] = [];
      for await (const piece of streamed) pieces.push(piece);
      expect(pieces.at(-1)).toMatchObject({ type: "done", endpoint: "backup", model: "model-b" });
    }
    await requestLogOf(database().db).flush();
    const logged = await database().db.select().from(requestLog);
    expect(logged.map((row) => row.endpoint)).toEqual(Array(6).fill("backup"));

    a().behave({ kind: "error", status: 401 });
    const refused = await problemOf(caller(model).chat.send({ aid: "falls", q: "bad key" }));
    expect(refused).toMatchObject({ status: 502, detail: "The model provider failed (HTTP 401)." });
    expect(b().requests.at(-1)?.messages.at(-1)?.content).not.toBe("bad key");
  });

  it("says which endpoints failed and how, never what they sent", async () => {
    await agent("fails");
    a().behave({ kind: "error", status: 500 });
    b().behave({ kind: "error", status: 503 });
    const failed = await problemOf(caller(runtime()).chat.send({ aid: "fails", q: "hi" }));
    expect(failed).toMatchObject({
      status: 502,
      code: "provider_error",
      detail: "Every model endpoint of this agent failed: primary (HTTP 500), backup (HTTP 503).",
    });
  });

  it("opens an endpoint's circuit for every runtime, probes it once it is due, closes it", async () => {
    await agent("circuit");
    a().behave({ kind: "error", status: 500 });
    const worker1 = runtime();
    const worker2 = runtime();
    await caller(worker1).chat.send({ aid: "circuit", q: "1" });
    await caller(worker2).chat.send({ aid: "circuit", q: "2" });
    expect(a().requests).toHaveLength(2);
    const [open] = await database().db.select().from(modelCircuits);
    expect(open).toMatchObject({ baseUrl: a().baseUrl, model: "model-a", failures: 2 });
    expect(open?.openUntil?.toISOString()).toBe("2026-11-29T08:00:30.000Z");

    // Open: neither worker calls it.
    for (const model of [worker1, worker2, runtime()])
      expect(await caller(model).chat.send({ aid: "circuit", q: "skip" })).toMatchObject({
        endpoint: "backup",
      });
    expect(a().requests).toHaveLength(2);

    // Due again: one call probes it; its success closes the circuit.
    clock.advance(30_000);
    a().behave({ kind: "reply", text: "from a" });
    expect(await caller(worker2).chat.send({ aid: "circuit", q: "probe" })).toMatchObject({
      reply: "from a",
      endpoint: "primary",
    });
    await expect.poll(() => database().db.select().from(modelCircuits)).toEqual([]);
  });

  it("answers 503 with Retry-After when every endpoint's circuit is open", async () => {
    await agent("rested");
    a().behave({ kind: "error", status: 500 });
    b().behave({ kind: "error", status: 500 });
    const model = runtime();
    for (const q of ["1", "2"]) await problemOf(caller(model).chat.send({ aid: "rested", q }));
    clock.advance(10_000);
    const rested = await problemOf(caller(model).chat.send({ aid: "rested", q: "3" }));
    expect(rested).toMatchObject({
      status: 503,
      code: "service_unavailable",
      detail:
        "Every model endpoint of this agent has failed repeatedly and is rested for now; try again in 20 s.",
      retry_after_s: 20,
    });
    expect(a().requests.length + b().requests.length).toBe(4);
  });
});
