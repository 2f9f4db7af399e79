import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentInputSchema } from "@/server/agents";
import { createDeploymentInputSchema } from "@/server/deployments";
import { sampleProposal } from "../helpers/proposal";
import { type RunningServer, startServer, TEST_ADMIN_KEY } from "../helpers/server";

/**
 * Property-based fuzzing of every REST path with malformed requests: random bytes, wrong types,
 * deep nesting, huge strings and numbers, odd Unicode, odd headers. Whatever comes in, the
 * answer is a 4xx problem (never a 5xx), and the database holds exactly what it held before.
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 250);
const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}` };

/** JSON values of every shape, including deep nesting and large or odd numbers and strings. */
const jsonValue = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.letrec((tie) => ({
    deep: fc.oneof({ depthSize: "small" }, fc.constant(1), fc.array(tie("deep"), { maxLength: 1 })),
  })).deep,
  fc.constantFrom(
    1e308,
    -1e308,
    2 ** 53 + 1,
    -0,
    0.1,
    "x".repeat(70_000),
    "\u0000",
    "\uD800",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "‮reversed",
  ),
  fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })),
);

/** A request body: bytes that are not JSON, JSON of any shape, or a near-miss of a real body. */
const body = (nearMiss: fc.Arbitrary<unknown>) =>
  fc.oneof(
    fc.uint8Array({ maxLength: 512 }).map((bytes) => Buffer.from(bytes)),
    fc.string({ unit: "binary", maxLength: 300 }),
    jsonValue.map((value) => JSON.stringify(value) ?? "null"),
    nearMiss.map((value) => JSON.stringify(value)),
  );

const contentType = fc.oneof(
  fc.constant("application/json"),
  fc.constantFrom(
    "text/plain",
    "application/x-www-form-urlencoded",
    "application/json; charset=latin1",
    "",
    "*/*",
  ),
  fc.string({ maxLength: 40 }),
);

const queryValue = fc.oneof(
  fc.string({ maxLength: 50 }),
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.constantFrom(
    "-1",
    "0",
    "1e309",
    "NaN",
    "99999999999999999999",
    "[]",
    "{}",
    "null",
    "x".repeat(5000),
  ),
);

/** A near-miss agent body: the real fields with wrong values (valid bodies are filtered out). */
const agentNearMiss = fc
  .record(
    {
      aid: fc.oneof(fc.string({ maxLength: 80 }), jsonValue),
      id: jsonValue,
      name: jsonValue,
      temperature: jsonValue,
      autonomous_enabled: jsonValue,
      autonomous_minutes: jsonValue,
      quota: fc.oneof(
        jsonValue,
        fc.dictionary(fc.constantFrom("message_limit_daily", "x"), jsonValue),
      ),
    },
    { requiredKeys: [] },
  )
  .filter((candidate) => !agentInputSchema.safeParse(candidate).success);

const deploymentNearMiss = fc
  .record(
    {
      user_address: jsonValue,
      request_id: jsonValue,
      proposal: fc.oneof(jsonValue, fc.constant({ ...sampleProposal, rank: "x" })),
    },
    { requiredKeys: [] },
  )
  .filter((candidate) => !createDeploymentInputSchema.safeParse(candidate).success);

const statusNearMiss = fc.record(
  {
    user_address: fc.oneof(jsonValue, fc.constant("0x0000000000000000000000000000000000000001")),
    signature: fc.oneof(jsonValue, fc.constant("0xdeadbeef")),
    siwe_msg: fc.oneof(
      jsonValue,
      fc.string({ maxLength: 400 }),
      fc.constant(
        'localhost wants you to sign in with your Ethereum account:\n0x0000000000000000000000000000000000000001\n\n{"request_id":"x"\n\nURI: http://localhost\nVersion: 1\nChain ID: 1\nNonce: abcdefgh12\nIssued At: nope',
      ),
    ),
    privy_token: jsonValue,
  },
  { requiredKeys: [] },
);

describe("fuzzing every REST path", () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer();
    // Something for the requests to miss: an agent and a deployment.
    await fetch(`${server.url}/agents`, {
      method: "POST",
      headers: { ...admin, "content-type": "application/json" },
      body: JSON.stringify({ aid: "fuzz-target", quota: { message_limit_daily: 3 } }),
    });
    await fetch(`${server.url}/v1/deployments`, {
      method: "POST",
      headers: { ...admin, "content-type": "application/json" },
      body: JSON.stringify({
        request_id: "fuzz-deployment",
        user_address: "0x0000000000000000000000000000000000000002",
        proposal: sampleProposal,
      }),
    });
  });
  afterAll(() => server?.stop());

  /** Everything a malformed request could have changed, as the API shows it. */
  async function snapshot() {
    const get = async (path: string) =>
      (await fetch(`${server.url}${path}`, { headers: admin })).json();
    return {
      agents: await get("/agents?limit=1000"),
      deployments: await get("/v1/deployments?limit=500"),
      runs: await get("/agents/fuzz-target/runs?limit=500"),
      threads: await get(
        `/api/trpc/threads.list?input=${encodeURIComponent('{"aid":"fuzz-target"}')}`,
      ),
    };
  }

  const statuses = new Map<number, number>();

  /** Sends one request; returns its status, or undefined when the client itself refused to send it. */
  async function send(path: string, init: RequestInit): Promise<number | undefined> {
    let response: Response;
    try {
      response = await fetch(`${server.url}${path}`, init);
    } catch (error) {
      // fetch refuses some header values before sending: nothing reached the server.
      if (error instanceof TypeError && !(error.cause instanceof Error && "code" in error.cause))
        return undefined;
      throw error;
    }
    await response.arrayBuffer();
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    if (response.status >= 500) {
      throw new Error(`${init.method ?? "GET"} ${path.slice(0, 120)} answered ${response.status}`);
    }
    return response.status;
  }

  it(`answers ${RUNS * 8} malformed requests with 4xx only, and changes nothing`, async () => {
    const before = await snapshot();
    const post = (path: string, nearMiss: fc.Arbitrary<unknown>) =>
      fc.asyncProperty(
        body(nearMiss),
        contentType,
        fc.boolean(),
        async (payload, type, authorized) => {
          const status = await send(path, {
            method: "POST",
            headers: { ...(authorized ? admin : {}), ...(type ? { "content-type": type } : {}) },
            body: payload,
          });
          if (status !== undefined) expect(status).toBeGreaterThanOrEqual(400);
        },
      );
    const get = (makePath: (value: string) => string) =>
      fc.asyncProperty(queryValue, fc.string({ maxLength: 30 }), async (value, header) => {
        const status = await send(makePath(encodeURIComponent(value)), {
          headers: { ...admin, accept: header, "x-odd": header },
        });
        if (status !== undefined) expect(status).toBeLessThan(500);
      });

    const properties = [
      post("/agents", agentNearMiss),
      post("/v1/deployments", deploymentNearMiss),
      post("/v1/deployments/worker/status", statusNearMiss),
      get((v) => `/agents?limit=${v}&cursor=${v}&q=${v}`),
      // An unknown agent, or the real one with a q that is missing or too long: never a reply.
      get((v) =>
        v.length % 2 ? `/${v || "x"}/chat?q=${v}` : `/fuzz-target/chat?q=${"x".repeat(10_001)}${v}`,
      ),
      get(
        (v) =>
          `/v1/deployments?limit=${v}&status=${v}&user_address=${v}&proposal_id=${v}&cursor=${v}`,
      ),
      get((v) => `/v1/deployments/${v || "0"}`),
      // Only malformed addresses: a valid one would (rightly) store a nonce.
      get((v) => `/v1/nonce?user_address=0x${v.replace(/[0-9a-fA-F]/g, "")}zz`),
    ];
    for (const property of properties)
      await fc.assert(property as fc.IAsyncProperty<unknown[]>, { numRuns: RUNS });

    expect(await snapshot()).toEqual(before);
    const total = [...statuses.values()].reduce((sum, n) => sum + n, 0);
    console.info(
      `fuzz: ${total} requests answered; statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
    expect(total).toBeGreaterThan(RUNS * 6);
  });

  it("refuses the NUL character in any text it would store, naming the field", async () => {
    const postJson = (path: string, value: unknown) =>
      fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { ...admin, "content-type": "application/json" },
        body: JSON.stringify(value),
      });
    const agent = await postJson("/agents", {
      aid: "nul-agent",
      name: "a\u0000b",
      prompt: "x\u0000",
    });
    expect(agent.status).toBe(400);
    expect((await agent.json()).errors.map((e: { field: string }) => e.field).sort()).toEqual([
      "name",
      "prompt",
    ]);
    const chat = await fetch(`${server.url}/fuzz-target/chat?q=${encodeURIComponent("hi\u0000")}`);
    expect(chat.status).toBe(400);
    const deployment = await postJson("/v1/deployments", {
      user_address: "0x0000000000000000000000000000000000000003",
      proposal: { ...sampleProposal, extra_attribute: { "k\u0000": 1 } },
    });
    expect(deployment.status).toBe(400);
    expect((await fetch(`${server.url}/${encodeURIComponent("\u0000")}/chat?q=hi`)).status).toBe(
      400,
    );
  });

  it("survives the malformed requests: the service still answers normally", async () => {
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    const reply = await fetch(`${server.url}/fuzz-target/chat?q=still%20here`);
    expect(await reply.text()).toBe("echo: still here");
  });
});
