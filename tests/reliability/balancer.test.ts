import { Agent, fetch as undiciFetch } from "undici";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createThrowawayPostgres, TEST_DATABASE_URL } from "../helpers/database-kinds";
import { type FakeOpenAi, startFakeOpenAi } from "../helpers/fake-openai";
import { haproxyInstalled, type RunningBalancer, startBalancer } from "../helpers/haproxy";
import { type RunningServer, startServer, TEST_ADMIN_KEY } from "../helpers/server";

/**
 * Two instances on one PostgreSQL behind HAProxy (Debian's package), configured by the file
 * shipped in deploy/haproxy.cfg: what held across two instances holds through the balancer,
 * streams pass unbuffered, the client address arrives through X-Forwarded-For, and an instance
 * stopped under load loses no request the balancer could send elsewhere.
 */

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

if (TEST_DATABASE_URL && !haproxyInstalled)
  throw new Error("HAProxy is not installed (/usr/sbin/haproxy): `apt-get install haproxy`.");

describe.skipIf(!TEST_DATABASE_URL)("two instances behind HAProxy, on PostgreSQL", () => {
  let fake: FakeOpenAi;
  let database: { url: string; drop(): Promise<void> };
  let instances: RunningServer[] = [];
  let balancer: RunningBalancer;

  beforeAll(async () => {
    fake = await startFakeOpenAi();
    database = await createThrowawayPostgres();
    const env = {
      DATABASE_URL: database.url,
      // One web process each: the machine has two cores, and the point here is the instances.
      WEB_CONCURRENCY: "1",
      TRUST_PROXY: "1",
      LLM_BASE_URL: fake.baseUrl,
      LLM_API_KEY: "sk-test",
      LLM_MAX_RETRIES: "0",
      SHUTDOWN_GRACE_MS: "20000",
    };
    instances = [await startServer(env), await startServer({ ...env, SCHEDULER: "off" })];
    balancer = await startBalancer(
      (instances[0] as RunningServer).url,
      (instances[1] as RunningServer).url,
    );
  });
  afterAll(async () => {
    const changes = balancer?.lines().filter((line) => / is (DOWN|UP)/.test(line.text)) ?? [];
    if (changes.length > 0) console.info(changes.map((line) => line.text).join("\n"));
    await balancer?.stop();
    for (const instance of instances) await instance.stop();
    await fake?.close();
    await database?.drop();
  });

  const createAgent = async (body: object) => {
    const response = await fetch(`${balancer.url}/agents`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(201);
  };
  const counted = async (aid: string) =>
    (await (await fetch(`${balancer.url}/agents?q=${aid}`, { headers: admin })).json()).agents[0]
      .quota.message_count_total as number;

  it("passes a streamed reply through as it is made, not when it ends", async () => {
    await createAgent({ aid: "streamer", rate_limit_rpm: null });
    // 20 tokens in 10 writes over 2 s: the first after 0.2 s, the last after 2 s.
    fake.behave({ kind: "tokens", tokens: 20, writes: 10, latencyMs: 2000 });
    const started = Date.now();
    const response = await fetch(`${balancer.url}/streamer/chat?q=stream`, {
      headers: { accept: "text/event-stream" },
    });
    expect(response.status).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = "";
    let firstDeltaAt: number | undefined;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (firstDeltaAt === undefined && text.includes("event: delta")) firstDeltaAt = Date.now();
    }
    const endedAt = Date.now();
    expect(text).toContain("event: done");
    // A balancer that buffered the stream would hand over every delta at the end, at once.
    expect(firstDeltaAt).toBeDefined();
    expect(endedAt - (firstDeltaAt as number)).toBeGreaterThan(1000);
    console.info(
      `balancer stream: first delta after ${(firstDeltaAt as number) - started} ms, end after ${endedAt - started} ms`,
    );
  });

  it("answers exactly 100 of 500 chats against a limit of 100, whichever instance serves them", async () => {
    await createAgent({
      aid: "limited",
      rate_limit_rpm: null,
      quota: { message_limit_daily: 100 },
    });
    fake.behave({ kind: "reply", text: "ok", delayMs: 20 });
    const statuses = await Promise.all(
      Array.from({ length: 500 }, (_, i) =>
        fetch(`${balancer.url}/limited/chat?q=q${i}`).then((response) => response.status),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(100);
    expect(statuses.filter((s) => s === 429)).toHaveLength(400);
    expect(await counted("limited")).toBe(100);
    // Both instances served some (their request lines are written within 100 ms).
    for (const instance of instances)
      await vi.waitFor(
        () => expect(instance.output()).toMatch(/"route":"\/\{aid\}\/chat","status":(200|429)/),
        { timeout: 5000 },
      );
  });

  it("counts callers by the address HAProxy saw (TRUST_PROXY=1), whatever they forward themselves", async () => {
    await createAgent({ aid: "per-client", rate_limit_rpm: 2 });
    fake.behave({ kind: "reply", text: "ok" });
    const from = (localAddress: string) => new Agent({ localAddress });
    const ask = async (dispatcher: Agent, forwarded?: string) =>
      (
        await undiciFetch(`${balancer.url}/per-client/chat?q=hi`, {
          dispatcher,
          headers: forwarded ? { "x-forwarded-for": forwarded } : {},
        })
      ).status;
    const two = from("127.0.0.2");
    const three = from("127.0.0.3");
    expect([await ask(two), await ask(two), await ask(two)]).toEqual([200, 200, 429]);
    // Another address has its own window; claiming to be someone else changes nothing.
    expect([await ask(three, "198.51.100.7"), await ask(three, "127.0.0.9")]).toEqual([200, 200]);
    expect(await ask(three, "203.0.113.1")).toBe(429);
    await two.close();
    await three.close();
  });

  it("loses no request when an instance is stopped with SIGTERM under load, and stops sending to it while it drains", async () => {
    await createAgent({
      aid: "steady",
      rate_limit_rpm: null,
      quota: { message_limit_daily: null, message_limit_monthly: null },
    });
    // Quick chats through the balancer, and a few slow ones held on the instance that is
    // stopped: it drains until they finish, seconds after its readiness turned 503, so the
    // balancer's checks (every 1 s, then every 0.5 s, two failures) see the drain whatever the
    // machine's load, rather than the instance being gone.
    let slowAtModel = 0;
    fake.behaveBy((request) => {
      if (!request.messages.some((m) => m.content === "slow"))
        return { kind: "reply", text: "steady", delayMs: 200 };
      slowAtModel++;
      return { kind: "reply", text: "slow", delayMs: 6000 };
    });
    const [stopping] = instances as [RunningServer, RunningServer];
    const results: Array<number | string> = [];
    let stop = false;
    const client = async () => {
      const dispatcher = new Agent({ connections: 1 });
      while (!stop) {
        results.push(
          await undiciFetch(`${balancer.url}/steady/chat?q=hi`, { dispatcher }).then(
            async (response) => {
              const text = await response.text();
              return response.status === 200 ? 200 : `${response.status}: ${text.slice(0, 160)}`;
            },
            (error: Error) => `failed: ${error.message}`,
          ),
        );
      }
      await dispatcher.close();
    };
    const clients = Array.from({ length: 20 }, () => client());
    await sleep(1000);
    const slow = Array.from({ length: 4 }, () =>
      fetch(`${stopping.url}/steady/chat?q=slow`).then(async (r) => [r.status, await r.text()]),
    );
    for (let i = 0; i < 400 && slowAtModel < 4; i++) await sleep(25);
    expect(slowAtModel).toBe(4);
    const sigtermAt = Date.now();
    const exitCode = await stopping.signal("SIGTERM");
    const exitedAt = Date.now();
    await sleep(1500);
    stop = true;
    await Promise.all(clients);

    const other = results.filter((status) => status !== 200);
    const down = balancer.lines().find((line) => /agent_service\/app1 is DOWN/.test(line.text));
    console.info(
      `balancer SIGTERM: ${results.length} chats, ${other.length} not 200; drained in ${exitedAt - sigtermAt} ms; the balancer took it out ${down ? down.at - sigtermAt : "-"} ms after SIGTERM`,
    );
    expect(exitCode).toBe(0);
    expect(other.slice(0, 5), `${other.length} not answered 200`).toEqual([]);
    expect(await Promise.all(slow)).toEqual(Array(4).fill([200, "slow"]));
    expect(await counted("steady")).toBe(results.length + 4);
    // HAProxy took it out on its readiness answer (503), while it drained.
    expect(down?.text).toMatch(/Layer7 wrong status, code: 503/);
    expect(down?.at).toBeLessThan(exitedAt);
  }, 60_000);
});
