import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createThrowawayPostgres, TEST_DATABASE_URL } from "../helpers/database-kinds";
import { type Behaviour, type FakeOpenAi, startFakeOpenAi } from "../helpers/fake-openai";
import { seeded } from "../helpers/seeded";
import { type RunningServer, startServer, TEST_ADMIN_KEY } from "../helpers/server";

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const TIMEOUT_MS = 500;
const CAP = 4;
const CLIENTS = 24;
const LOAD_MS = 6000;
const AID = "under-load";
/**
 * How late a 504 or a 503 may come. Generous, for a loaded 2-core machine: what matters is that
 * a hung call does not hold its client (or its slot) for ever, and the client gives up itself
 * after CLIENT_GIVES_UP_MS so that a server that never answers fails here, not on the test timeout.
 */
const ANSWER_WITHIN_MS = TIMEOUT_MS + 4500;
const CLIENT_GIVES_UP_MS = 15_000;

/** `status` 0: the client gave up waiting (CLIENT_GIVES_UP_MS) or the connection failed. */
type Outcome = { status: number; ms: number; code?: string; retryAfter: string | null };

/** Half the calls answer after 20-50 ms, a quarter hang for ever, a quarter fail with 500. */
function mixedBehaviour(seed: number): (request: unknown, index: number) => Behaviour {
  return (_request, index) => {
    const roll = seeded(seed ^ Math.imul(index + 1, 0x9e3779b1))();
    if (roll < 0.5) {
      return { kind: "reply", text: "A reply under load.", delayMs: 20 + Math.floor(roll * 60) };
    }
    if (roll < 0.75) return { kind: "hang" };
    return { kind: "error", status: 500 };
  };
}

/**
 * A model provider that hangs or fails on many calls while clients keep asking: every hung
 * call ends in 504 near the timeout (and its connection to the provider is closed), no more
 * than LLM_MAX_CONCURRENCY calls reach the provider at once (the rest get 503 with
 * Retry-After), and only delivered replies keep their quota and are stored.
 */
describe("a model provider that hangs or errors under sustained load", () => {
  let fake: FakeOpenAi;
  let server: RunningServer;
  let databaseUrl: string | undefined;
  let dropDatabase: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    fake = await startFakeOpenAi();
    const throwaway = TEST_DATABASE_URL ? await createThrowawayPostgres() : undefined;
    databaseUrl = throwaway?.url;
    dropDatabase = throwaway?.drop;
    server = await startServer({
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      LLM_BASE_URL: fake.baseUrl,
      LLM_API_KEY: "sk-test",
      LLM_TIMEOUT_MS: String(TIMEOUT_MS),
      LLM_MAX_CONCURRENCY: String(CAP),
      // The cap is each web worker's: one process, so that it is the instance's too.
      WEB_CONCURRENCY: "1",
      LLM_MAX_RETRIES: "0",
      // Nothing else calls the model: the chats alone fill the slots.
      SCHEDULER: "off",
    });
    const created = await fetch(`${server.url}/agents`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({
        aid: AID,
        quota: { message_limit_daily: null, message_limit_monthly: null },
      }),
    });
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    await server?.stop();
    await fake?.close();
    await dropDatabase?.();
  });

  const countedUses = async (): Promise<number> =>
    (await (await fetch(`${server.url}/agents?q=${AID}`, { headers: admin })).json()).agents[0]
      .quota.message_count_total;

  const storedMessages = async (): Promise<number> => {
    const threads = await (
      await fetch(
        `${server.url}/api/trpc/threads.list?input=${encodeURIComponent(JSON.stringify({ aid: AID }))}`,
        { headers: admin },
      )
    ).json();
    return threads.result.data.threads.reduce(
      (sum: number, t: { message_count: number }) => sum + t.message_count,
      0,
    );
  };

  it("holds the timeout and the concurrency cap, and gives back the quota of every failed call", async () => {
    const testStarted = Date.now();
    fake.requests.splice(0);
    fake.resetCounters();
    fake.behaveBy(mixedBehaviour(20_240_601));

    const outcomes: Outcome[] = [];
    let running = true;
    const worker = async (id: number) => {
      for (let i = 0; running; i++) {
        const started = Date.now();
        let outcome: Outcome;
        try {
          const response = await fetch(
            `${server.url}/${AID}/chat?q=load-${id}-${i}&chat_id=w${id}`,
            { signal: AbortSignal.timeout(CLIENT_GIVES_UP_MS) },
          );
          const body = await response.text();
          let code: string | undefined;
          if (response.status !== 200) {
            try {
              code = JSON.parse(body).code;
            } catch {
              code = `unparsable: ${body.slice(0, 80)}`;
            }
          }
          const retryAfter = response.headers.get("retry-after");
          outcome = { status: response.status, ms: Date.now() - started, code, retryAfter };
        } catch (error) {
          const code = `client: ${(error as Error).name}`;
          outcome = { status: 0, ms: Date.now() - started, code, retryAfter: null };
        }
        outcomes.push(outcome);
        // After a failure a client waits a quarter of the 503's Retry-After (not all of it: the
        // load is the point), so that refusals do not spin a small machine.
        if (outcome.status !== 200) await sleep(250);
      }
    };
    const workers = Array.from({ length: CLIENTS }, (_, id) => worker(id));
    await sleep(LOAD_MS);
    running = false;
    await Promise.all(workers);

    // Every call the server gave up on is closed at the provider too: nothing stays open.
    for (let i = 0; i < 50 && fake.inFlight() > 0; i++) await sleep(100);
    const openAfter = fake.inFlight();
    const served = fake.served();

    const of = (status: number) => outcomes.filter((o) => o.status === status);
    const slowest = (list: Outcome[]) => Math.max(0, ...list.map((o) => o.ms));
    const delivered = of(200).length;

    // Quota: given back for every failure (the refund happens before the failure is answered,
    // but allow a moment in case one had to be retried in the background).
    let counted = await countedUses();
    for (let i = 0; i < 20 && counted !== delivered; i++) {
      await sleep(250);
      counted = await countedUses();
    }
    const stored = await storedMessages();
    let inDatabase: { uses: number; messages: number } | undefined;
    if (databaseUrl) {
      const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
      try {
        const [quota] = await sql`SELECT message_count_total FROM agent_quotas WHERE aid = ${AID}`;
        const [messages] =
          await sql`SELECT count(*)::int AS n FROM chat_messages WHERE aid = ${AID}`;
        inDatabase = { uses: Number(quota?.message_count_total), messages: Number(messages?.n) };
      } finally {
        await sql.end();
      }
    }

    console.info(
      `provider under load: ${outcomes.length} requests; 200/502/503/504: ${delivered}/${of(502).length}/${of(503).length}/${of(504).length}; ` +
        `other: ${outcomes.length - delivered - of(502).length - of(503).length - of(504).length}; ` +
        `provider saw ${fake.requests.length} calls (reply/error/hang ${served.reply}/${served.error}/${served.hang}), ` +
        `max in flight ${fake.maxInFlight()} (cap ${CAP}), abandoned ${fake.abandoned()}, open after ${openAfter}; ` +
        `slowest 504 ${slowest(of(504))} ms, fastest 504 ${Math.min(...of(504).map((o) => o.ms))} ms, slowest 503 ${slowest(of(503))} ms, slowest 502 ${slowest(of(502))} ms, slowest 200 ${slowest(of(200))} ms; ` +
        `quota counted ${counted} vs ${delivered} 200s; messages stored ${stored} vs ${2 * delivered}` +
        (inDatabase
          ? `; in PostgreSQL: uses ${inDatabase.uses}, messages ${inDatabase.messages}`
          : " (PGlite)") +
        `; ${Date.now() - testStarted} ms`,
    );

    // Only the documented answers: a reply, a provider failure, no slot, a timeout.
    expect(outcomes.filter((o) => ![200, 502, 503, 504].includes(o.status))).toEqual([]);
    expect([...new Set(of(502).map((o) => o.code))]).toEqual(["provider_error"]);
    expect([...new Set(of(503).map((o) => o.code))]).toEqual(["service_unavailable"]);
    expect([...new Set(of(504).map((o) => o.code))]).toEqual(["provider_timeout"]);
    // Every path was taken.
    expect(delivered).toBeGreaterThan(0);
    expect(of(502).length).toBeGreaterThan(0);
    expect(of(504).length).toBeGreaterThan(0);
    expect(of(503).length).toBeGreaterThan(0);

    // Timeouts hold: a hung call is answered once the timeout has passed, and not much later
    // (a generous bound for a loaded machine: the point is that hangs are not held for ever).
    for (const o of of(504)) {
      expect(o.ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
      expect(o.ms).toBeLessThan(ANSWER_WITHIN_MS);
    }
    // No slot: refused at once, with Retry-After.
    for (const o of of(503)) {
      expect(o.retryAfter).toMatch(/^[1-9]\d*$/);
      expect(o.ms).toBeLessThan(ANSWER_WITHIN_MS);
    }

    // The cap holds at the provider, and the server closed every hung call when it gave up.
    expect(fake.maxInFlight()).toBeGreaterThan(1);
    expect(fake.maxInFlight()).toBeLessThanOrEqual(CAP);
    expect(openAfter).toBe(0);
    expect(fake.abandoned()).toBeGreaterThanOrEqual(served.hang);
    // Each call that got a slot reached the provider exactly once (no retries), and a hang
    // never turned into anything but a timeout.
    expect(delivered + of(502).length + of(504).length).toBe(fake.requests.length);
    expect(of(504).length).toBeGreaterThanOrEqual(served.hang);
    expect(delivered).toBeLessThanOrEqual(served.reply);

    // Quota given back: exactly the delivered replies are counted, and stored, two messages each.
    expect(counted).toBe(delivered);
    expect(stored).toBe(2 * delivered);
    if (inDatabase) expect(inDatabase).toEqual({ uses: delivered, messages: 2 * delivered });

    // Once the provider answers normally again, so does the service.
    fake.behave({ kind: "reply", text: "Back to normal." });
    const normal = await fetch(`${server.url}/${AID}/chat?q=again&chat_id=after`);
    expect(normal.status).toBe(200);
    expect(await normal.text()).toBe("Back to normal.");
    expect(await countedUses()).toBe(delivered + 1);
  });
});
