import type { LookupAddress } from "node:dns";
import { afterAll, describe, expect, it, vi } from "vitest";
import { authKeys } from "@/server/auth";
import { fixedClock } from "@/server/kit/clock";
import { createModelRuntime, type ModelRuntime } from "@/server/model-call";
import { callerFor, problemOf, TEST_ADMIN_KEY, testConfig } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";
import { useFakeOpenAi } from "../helpers/use-fake-openai";

/** A public-looking name answered here with loopback, where the fake model is; others go to DNS. */
const ANSWERS: Record<string, LookupAddress[]> = {
  "inside.example.com": [{ address: "127.0.0.1", family: 4 }],
};
vi.mock("node:dns", async (importOriginal) => {
  const dns = await importOriginal<typeof import("node:dns")>();
  const lookup = (
    name: string,
    options: object,
    callback: (error: Error | null, addresses: LookupAddress[]) => void,
  ) => {
    const answer = ANSWERS[name];
    if (answer) queueMicrotask(() => callback(null, answer));
    else dns.lookup(name, { ...options, all: true }, callback);
  };
  return { ...dns, default: { ...dns, lookup }, lookup };
});

/**
 * Where an agent's model endpoints may send its prompts and keys: a name is judged on the address
 * it resolves to when connecting, a stored endpoint again at each call (the setting may have
 * changed), and no environment variable but MODEL_… may be named as a key.
 */
describe.each(DATABASE_KINDS)("the outgoing rule for model endpoints on %s", (kind) => {
  const clock = fixedClock("2026-11-29T09:00:00Z");
  const database = useTestDatabase(kind, { clock, start: "2026-11-29T09:00:00Z" });
  const fake = useFakeOpenAi("from inside");
  const runtimes: ModelRuntime[] = [];
  afterAll(() => Promise.all(runtimes.map((r) => r.endpoints.connections.close())));
  const runtime = (env: Record<string, string> = {}) => {
    const made = createModelRuntime(testConfig({ LLM_MAX_RETRIES: "0", ...env }), {
      endpointKey: authKeys(TEST_ADMIN_KEY).endpointKey,
    });
    runtimes.push(made);
    return made;
  };
  const caller = (env: Record<string, string> = {}, model?: ModelRuntime) =>
    callerFor(database().db, { clock, model, config: testConfig(env) });
  const port = () => new URL(fake().baseUrl).port;

  it("refuses at connection time a name that resolves to loopback, unless it is listed", async () => {
    await caller().agents.upsert({
      aid: "inside",
      model_endpoints: [
        { name: "inside", base_url: `http://inside.example.com:${port()}/v1`, model: "m" },
      ],
    });
    const refused = await problemOf(caller({}, runtime()).chat.send({ aid: "inside", q: "hi" }));
    expect(refused).toMatchObject({
      status: 502,
      detail:
        "Every model endpoint of this agent failed: inside (its host is not one MODEL_ALLOWED_HOSTS allows).",
    });
    expect(fake().requests).toHaveLength(0);

    const listed = runtime({ MODEL_ALLOWED_HOSTS: "inside.example.com" });
    expect(await caller({}, listed).chat.send({ aid: "inside", q: "hi" })).toMatchObject({
      reply: "from inside",
      endpoint: "inside",
    });
    expect(fake().requests).toHaveLength(1);
  });

  it("judges a stored endpoint again at each call, and says nothing of the setting to the caller", async () => {
    const listed = { MODEL_ALLOWED_HOSTS: "127.0.0.1" };
    await caller(listed).agents.upsert({
      aid: "was-listed",
      model_endpoints: [{ name: "local", base_url: fake().baseUrl, model: "m" }],
    });
    const refused = await problemOf(
      caller({}, runtime()).chat.send({ aid: "was-listed", q: "hi" }),
    );
    expect(refused.detail).toBe(
      "Every model endpoint of this agent failed: local (its host is not one MODEL_ALLOWED_HOSTS allows).",
    );
    expect(fake().requests).toHaveLength(0);
  });

  it("takes no environment variable but MODEL_… as a key", async () => {
    const refused = await problemOf(
      caller().agents.upsert({
        aid: "env",
        model_endpoints: [
          {
            name: "leak",
            base_url: "https://api.example.com/v1",
            model: "m",
            api_key_env: "DATABASE_URL",
          },
        ],
      }),
    );
    expect(refused).toMatchObject({
      status: 400,
      errors: [
        {
          field: "model_endpoints.0.api_key_env",
          detail: "must name an environment variable whose name starts with MODEL_ (A-Z, 0-9, _)",
        },
      ],
    });
  });
});
