import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_DATABASE_URL } from "../helpers/database-kinds";
import { type ModelServer, startModelServer } from "../helpers/model-server";
import { TEST_ADMIN_KEY } from "../helpers/server";

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };
const LIMIT = 10;
const CHATS = 300;
const ROUNDS = 10;

/**
 * An agent at its daily limit while every chat it admits fails (the model hangs past
 * LLM_TIMEOUT_MS) and gives its use back: refused chats keep finding a use freed just after
 * their refusal. Seen in CI as 500s ("quota kept changing") among the 429s. Every answer must
 * be one a client can act on, no more than LIMIT chats may reach the model at once, and every
 * use must come back. PostgreSQL only: PGlite runs one statement at a time, so a refund never
 * lands between a refusal and the read that explains it.
 */
describe.skipIf(!TEST_DATABASE_URL)("an agent at its limit whose chats all fail", () => {
  let running: ModelServer | undefined;
  beforeAll(async () => {
    running = await startModelServer("postgres", {
      LLM_MAX_RETRIES: "0",
      LLM_TIMEOUT_MS: "100",
      LLM_MAX_CONCURRENCY: String(CHATS * 2),
      SCHEDULER: "off",
    });
    running.fake.behave({ kind: "hang" });
  });
  afterAll(() => running?.stop());

  it("answers 429, 503 or 504, never more than the limit at once, and gives every use back", async () => {
    const { server, fake } = running as ModelServer;
    const tally: Record<string, number> = {};
    const unexpected: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const aid = `contended-${round}`;
      const created = await fetch(`${server.url}/agents`, {
        method: "POST",
        headers: admin,
        body: JSON.stringify({ aid, quota: { message_limit_daily: LIMIT } }),
      });
      expect(created.status).toBe(201);
      const responses = await Promise.all(
        Array.from({ length: CHATS }, (_, i) =>
          fetch(`${server.url}/${aid}/chat?q=${i}`, { headers: { accept: "application/json" } }),
        ),
      );
      for (const response of responses) {
        const body = await response.json();
        const key = `${response.status} ${body.code}`;
        tally[key] = (tally[key] ?? 0) + 1;
        const expected =
          (response.status === 429 && body.code === "quota_exceeded") ||
          (response.status === 504 && body.code === "provider_timeout") ||
          (response.status === 503 &&
            body.code === "service_unavailable" &&
            response.headers.get("retry-after") === "1" &&
            body.detail ===
              `The quota of agent '${aid}' was changing under many chats at once; try again in a moment.`);
        if (!expected) unexpected.push(`${response.status} ${JSON.stringify(body)}`);
      }
      const counted = await fetch(`${server.url}/agents/${aid}`, { headers: admin });
      expect((await counted.json()).quota.message_count_daily).toBe(0);
    }
    console.info(
      `quota contention: ${ROUNDS} rounds of ${CHATS} chats at a limit of ${LIMIT}; ${JSON.stringify(tally)}; most at the model at once ${fake.maxInFlight()}`,
    );
    expect(unexpected).toEqual([]);
    // Above one, or the fake's count of open requests is not counting (a broken count read 0).
    expect(fake.maxInFlight()).toBeGreaterThan(1);
    expect(fake.maxInFlight()).toBeLessThanOrEqual(LIMIT);
    expect(tally["504 provider_timeout"]).toBeGreaterThanOrEqual(ROUNDS * LIMIT);
  });
});
