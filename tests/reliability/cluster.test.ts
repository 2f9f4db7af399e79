import { type AddressInfo, createServer as createNetServer } from "node:net";
import { Agent, fetch as undiciFetch } from "undici";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createThrowawayPostgres, TEST_DATABASE_URL } from "../helpers/database-kinds";
import { type FakeOpenAi, repliesAfter, startFakeOpenAi } from "../helpers/fake-openai";
import { processTree } from "../helpers/processes";
import { type RunningServer, startServer, TEST_ADMIN_KEY } from "../helpers/server";

/**
 * One instance of two web workers (`node:cluster`) on PostgreSQL, as `npm start` runs it on a
 * machine with two cores: limits hold across the workers, one scrape counts the whole
 * instance, a worker killed under load is replaced while the other answers and no count is
 * lost, and SIGTERM drains every worker.
 */

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Log lines of the server, parsed; the primary's and the workers' alike. */
function logLines(server: RunningServer): Record<string, unknown>[] {
  return server
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The metric's value in Prometheus text, for the series with exactly these labels. */
function metricValue(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

/**
 * `n` chats to `aid` at once, a connection each (so that the primary hands them to both
 * workers); how many got each status.
 */
async function chatsAtOnce(
  server: RunningServer,
  aid: string,
  n: number,
): Promise<Record<number, number>> {
  const statuses = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      fetch(`${server.url}/${aid}/chat?q=q${i}`, { headers: { connection: "close" } }).then(
        (response) => response.status,
      ),
    ),
  );
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

describe.skipIf(!TEST_DATABASE_URL)("an instance of two web workers, on PostgreSQL", () => {
  let fake: FakeOpenAi;
  let database: { url: string; drop(): Promise<void> };
  let server: RunningServer;
  let env: Record<string, string>;

  beforeAll(async () => {
    fake = await startFakeOpenAi();
    database = await createThrowawayPostgres();
    env = {
      DATABASE_URL: database.url,
      WEB_CONCURRENCY: "2",
      LLM_BASE_URL: fake.baseUrl,
      LLM_API_KEY: "sk-test",
      LLM_MAX_RETRIES: "0",
      // The bound on a chat's life, and so on how soon a dead worker's chats are given back.
      LLM_TIMEOUT_MS: "2000",
    };
    server = await startServer(env);
  });
  afterAll(async () => {
    await server?.stop();
    await fake?.close();
    await database?.drop();
  });

  it("refuses WEB_CONCURRENCY above 1 on the embedded database, naming DATABASE_URL", async () => {
    const refused = await startServer({ WEB_CONCURRENCY: "2" }).then(
      async (started) => {
        await started.stop();
        return "started";
      },
      (error: Error) => error.message,
    );
    expect(refused).toMatch(/The server exited \(1\)/);
    expect(refused).toMatch(/WEB_CONCURRENCY: 2 processes need DATABASE_URL/);
  });

  it("refuses a port another process holds, rather than sharing it", async () => {
    // The workers bind with SO_REUSEPORT, which shares a port with any such socket of this
    // user, such as another instance's worker: the primary's claim must fail the start first.
    const holder = createNetServer((socket) => socket.destroy());
    await new Promise<void>((resolve) =>
      holder.listen({ port: 0, host: "127.0.0.1", reusePort: true }, resolve),
    );
    const { port } = holder.address() as AddressInfo;
    const refused = await startServer({ ...env, LOG_LEVEL: "info" }, { port }).then(
      async (started) => {
        await started.stop();
        return "started";
      },
      (error: Error) => error.message,
    );
    await new Promise((resolve) => holder.close(resolve));
    expect(refused).toMatch(/The server exited \(1\)/);
    expect(refused).toMatch(/Agent Service cannot start: listen EADDRINUSE/);
  });

  it("holds a limit across the workers, counts the whole instance in one scrape, and runs the scheduler once", async () => {
    const created = await fetch(`${server.url}/agents`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({
        aid: "limited",
        rate_limit_rpm: null,
        quota: { message_limit_daily: 100 },
      }),
    });
    expect(created.status).toBe(201);
    fake.behave({ kind: "reply", text: "ok", delayMs: 20 });
    const counts = await chatsAtOnce(server, "limited", 500);
    expect(counts).toEqual({ 200: 100, 429: 400 });

    const metrics = await (await fetch(`${server.url}/metrics`, { headers: admin })).text();
    expect(metricValue(metrics, 'agent_chat_requests_total{outcome="ok",via="chat"}')).toBe(100);
    expect(metricValue(metrics, 'agent_chat_requests_total{outcome="quota",via="chat"}')).toBe(400);

    // Request lines are written in batches, within 100 ms (server/observability/log-stream.ts).
    const chatLines = await vi.waitFor(
      () => {
        const lines = logLines(server).filter((line) => line.route === "/{aid}/chat");
        expect(lines).toHaveLength(500);
        return lines;
      },
      { timeout: 5000 },
    );
    const byWorker = new Set(chatLines.map((line) => line.worker));
    expect([...byWorker].sort()).toEqual([1, 2]);
    const schedulers = logLines(server).filter((line) =>
      String(line.msg).startsWith("Agent Service: scheduler on"),
    );
    expect(schedulers.map((line) => line.worker)).toEqual([1]);
  });

  it("holds a token budget across the workers while replies are stored beside new chats", async () => {
    const created = await fetch(`${server.url}/agents`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({
        aid: "budgeted",
        rate_limit_rpm: null,
        quota: { token_limit_daily: 250, message_limit_daily: null, message_limit_monthly: null },
      }),
    });
    expect(created.status).toBe(201);
    // 15 tokens a reply: six replies leave 160 tokens, so 10 more may start, each holding its
    // input's estimate until its reply is stored: "You are budgeted." (17 characters), six
    // exchanges ("warm0" and "ok", 7 each) and its question (2 to 4), 16 tokens at 4 characters
    // a token. A stored reply counts 15, one fewer than it held: ten give back 10 tokens, never
    // the 16 another chat would hold. Replies are stored (agent_token_usage) while other chats
    // reserve (agent_quotas), on both workers.
    const usage = { prompt_tokens: 10, completion_tokens: 5 };
    fake.behave({ kind: "reply", text: "ok", usage });
    for (let i = 0; i < 6; i++) {
      expect((await fetch(`${server.url}/budgeted/chat?q=warm${i}`)).status).toBe(200);
    }
    // The replies wait until the tenth call reaches the model. A reply stored sooner lengthens
    // the thread's history, and with it the holds of the chats after it, so how many started
    // would depend on how fast the first replies came back. An eleventh call would still get
    // its reply (it is not held), and the count below would say so.
    fake.behaveBy(repliesAfter(10, { kind: "reply", text: "ok", usage }));
    const counts = await chatsAtOnce(server, "budgeted", 300);
    expect(counts).toEqual({ 200: 10, 429: 290 });
    const agent = await (await fetch(`${server.url}/agents/budgeted`, { headers: admin })).json();
    expect(agent.quota).toMatchObject({
      message_count_daily: 16,
      input_tokens_daily: 160,
      output_tokens_daily: 80,
    });
  });

  it("replaces a worker killed under load while the other answers, and loses no count", async () => {
    const created = await fetch(`${server.url}/agents`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ aid: "crashy", rate_limit_rpm: null }),
    });
    expect(created.status).toBe(201);
    fake.behave({ kind: "reply", text: "delivered", delayMs: 100 });

    const workersBefore = processTree(server.pid).slice(1);
    expect(workersBefore).toHaveLength(2);
    const victim = workersBefore[1] as number;

    // Twenty clients, each sending chats one after another, a connection each, so that new
    // connections arrive as the worker dies. A chat that gets no answer in 10 s (each takes
    // 100 ms) is "hung": a connection handed to the dead worker and never closed.
    const results: Array<{ status: number | "cut" | "hung"; startedAt: number }> = [];
    let killedAt = Number.POSITIVE_INFINITY;
    let stop = false;
    const client = async (n: number) => {
      const dispatcher = new Agent({ connections: 1, headersTimeout: 10_000 });
      for (let i = 0; !stop; i++) {
        const startedAt = Date.now();
        const status = await undiciFetch(`${server.url}/crashy/chat?q=c${n}-${i}&chat_id=load`, {
          dispatcher,
          headers: { connection: "close" },
        }).then(
          async (response) => {
            await response.text();
            return response.status;
          },
          (error: Error) =>
            (error.cause as Error | undefined)?.name === "HeadersTimeoutError"
              ? ("hung" as const)
              : ("cut" as const),
        );
        results.push({ status, startedAt });
      }
      await dispatcher.close();
    };
    const clients = Array.from({ length: 20 }, (_, n) => client(n));
    await sleep(1500);
    process.kill(victim, "SIGKILL");
    killedAt = Date.now();
    // Long enough for the primary to start another worker and for it to serve.
    const replaced = () => processTree(server.pid).some((pid) => !workersBefore.includes(pid));
    for (let i = 0; i < 200 && !replaced(); i++) await sleep(100);
    await sleep(1500);
    stop = true;
    await Promise.all(clients);

    const workersAfter = processTree(server.pid).slice(1);
    expect(workersAfter).toHaveLength(2);
    expect(workersAfter).not.toContain(victim);
    expect(results.filter((r) => r.status === "hung")).toEqual([]);
    const cut = results.filter((r) => r.status === "cut");
    const ok = results.filter((r) => r.status === 200);
    // Only chats on the killed worker's connections are cut (at most one per client), and
    // every chat started after the kill was seen is answered.
    expect(cut.length).toBeGreaterThan(0);
    expect(cut.length).toBeLessThanOrEqual(20);
    expect(results.filter((r) => r.startedAt > killedAt + 200 && r.status !== 200)).toEqual([]);
    expect(results.every((r) => r.status === 200 || r.status === "cut")).toBe(true);
    const restarts = logLines(server).filter((line) =>
      String(line.msg).startsWith("Agent Service: web worker"),
    );
    expect(restarts).toHaveLength(1);
    expect(restarts[0]).toMatchObject({ signal: "SIGKILL" });

    // Stored exchanges and the count agree once the cut chats' uses are given back (their
    // reservations outlive any chat after LLM_TIMEOUT_MS + 30 s; the housekeeping runs in
    // worker 1). A cut chat whose reply was stored before the kill counts, as it should.
    const state = async () => {
      const agent = (
        await (await fetch(`${server.url}/agents?q=crashy`, { headers: admin })).json()
      ).agents[0];
      const threads = await (
        await fetch(`${server.url}/agents/crashy/threads`, { headers: admin })
      ).json();
      const messages = (threads.threads as Array<{ message_count: number }>).reduce(
        (sum, thread) => sum + thread.message_count,
        0,
      );
      return { counted: agent.quota.message_count_total as number, stored: messages / 2 };
    };
    const deadline = Date.now() + 60_000;
    let seen = await state();
    while (seen.counted !== seen.stored && Date.now() < deadline) {
      await sleep(1000);
      seen = await state();
    }
    console.info(
      `cluster kill -9: ${results.length} chats, ${ok.length} answered, ${cut.length} cut; counted ${seen.counted}, stored ${seen.stored}`,
    );
    expect(seen.counted).toBe(seen.stored);
    expect(seen.stored).toBeGreaterThanOrEqual(ok.length);
    expect(seen.stored).toBeLessThanOrEqual(ok.length + cut.length);
  }, 120_000);

  it("drains every worker on SIGTERM: not ready at once, chats in flight finish, exit 0", async () => {
    fake.behave({ kind: "reply", text: "finished", delayMs: 1500 });
    const inFlight = Array.from({ length: 10 }, (_, i) =>
      fetch(`${server.url}/crashy/chat?q=drain${i}`, { headers: { connection: "close" } }).then(
        async (response) => [response.status, await response.text()] as const,
      ),
    );
    for (let i = 0; i < 600 && fake.inFlight() < 10; i++) await sleep(50);
    expect(fake.inFlight()).toBe(10);
    const exited = server.signal("SIGTERM");
    await sleep(200);
    // Each worker answers not ready: ask on new connections, which the primary hands to both.
    const ready = await Promise.all(
      Array.from({ length: 6 }, () =>
        fetch(`${server.url}/health/ready`, { headers: { connection: "close" } }).then(
          (response) => response.status,
        ),
      ),
    );
    expect(ready).toEqual(Array(6).fill(503));
    expect(await Promise.all(inFlight)).toEqual(Array(10).fill([200, "finished"]));
    expect(await exited).toBe(0);
    const stopped = logLines(server).filter((line) => line.msg === "Agent Service: stopped.");
    expect(stopped.map((line) => line.worker).sort()).toEqual([1, 2]);
  });
});
