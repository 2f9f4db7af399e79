import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, type RunningServer, startServer, TEST_ADMIN_KEY } from "../helpers/server";
import {
  clusterAvailable,
  createThrowawayCluster,
  type ThrowawayCluster,
} from "../helpers/throwaway-cluster";

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Outcome = { status: number; ms: number; phase: "before" | "down" | "after" };

/**
 * PostgreSQL stopped and started again under chat load (a throwaway server of the test's own):
 * while it is down requests fail fast with 503, the service recovers by itself, and every 200
 * is counted once, no more and no less.
 */
describe.skipIf(!clusterAvailable)("the database restarting under load", () => {
  let cluster: ThrowawayCluster;
  let server: RunningServer;

  beforeAll(async () => {
    cluster = createThrowawayCluster(await freePort());
    server = await startServer({ DATABASE_URL: cluster.url });
    const created = await fetch(`${server.url}/agents`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({
        aid: "steady",
        quota: { message_limit_daily: null, message_limit_monthly: null },
      }),
    });
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    await server?.stop();
    cluster?.destroy();
  });

  it("answers 503 while it is down, recovers without a restart, and counts every 200 exactly once", async () => {
    const outcomes: Outcome[] = [];
    let phase: Outcome["phase"] = "before";
    let running = true;
    const count = (predicate: (o: Outcome) => boolean) => outcomes.filter(predicate).length;
    const worker = async (id: number) => {
      for (let i = 0; running; i++) {
        const started = Date.now();
        const asked = phase;
        const response = await fetch(`${server.url}/steady/chat?q=${id}-${i}&chat_id=w${id}`);
        await response.arrayBuffer();
        outcomes.push({ status: response.status, ms: Date.now() - started, phase: asked });
        if (response.status !== 200) await sleep(50);
      }
    };
    const workers = Array.from({ length: 8 }, (_, id) => worker(id));

    await sleep(1500);
    phase = "down";
    cluster.stop();
    await sleep(2500);
    cluster.start();
    // The service finds the database again by itself: no restart.
    for (let i = 0; i < 100; i++) {
      if ((await fetch(`${server.url}/health`)).status === 200) break;
      await sleep(100);
    }
    phase = "after";
    // Until the workers have had answers after it (a request started while it was down may
    // still be on its way to a 503), within a bound that only a service that never recovers
    // reaches; then a little more load.
    const answeredAfter = () => count((o) => o.phase === "after" && o.status === 200);
    for (let i = 0; i < 150 && answeredAfter() < 8; i++) await sleep(100);
    await sleep(1000);
    running = false;
    await Promise.all(workers);

    const statuses = new Set(outcomes.map((o) => o.status));
    const delivered = count((o) => o.status === 200);
    const downFailures = outcomes.filter((o) => o.phase === "down" && o.status === 503);
    const slowestFailureMs = Math.max(0, ...downFailures.map((o) => o.ms));
    console.info(
      `restart: ${outcomes.length} requests; 200 before/down/after: ${count((o) => o.phase === "before" && o.status === 200)}/${count((o) => o.phase === "down" && o.status === 200)}/${count((o) => o.phase === "after" && o.status === 200)}; 503 while down: ${downFailures.length}, slowest ${slowestFailureMs} ms`,
    );

    expect([...statuses].every((status) => status === 200 || status === 503)).toBe(true);
    expect(downFailures.length).toBeGreaterThan(0);
    expect(count((o) => o.phase === "after" && o.status === 200)).toBeGreaterThan(0);
    // Fail fast: a refused connection is reported at once, well within the 5 s connect timeout.
    expect(slowestFailureMs).toBeLessThan(5000);

    // Uses whose reply failed while the database was down are given back once it is up again.
    const countedNow = async () =>
      (await (await fetch(`${server.url}/agents?q=steady`, { headers: admin })).json()).agents[0]
        .quota.message_count_total;
    let counted = await countedNow();
    for (let i = 0; i < 60 && counted !== delivered; i++) {
      await sleep(250);
      counted = await countedNow();
    }
    expect(counted).toBe(delivered);
    const threads = await (
      await fetch(
        `${server.url}/api/trpc/threads.list?input=${encodeURIComponent('{"aid":"steady"}')}`,
        { headers: admin },
      )
    ).json();
    const stored = threads.result.data.threads.reduce(
      (sum: number, t: { message_count: number }) => sum + t.message_count,
      0,
    );
    expect(stored).toBe(2 * delivered);
  });
});
