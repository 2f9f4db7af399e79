import type { ServerResponse } from "node:http";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createDatabase, type Database, type Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { fixedClock } from "@/server/kit/clock";
import { Connections } from "@/server/kit/connections";
import { attemptDelivery, WebhookSender, webhookSecretKey } from "@/server/webhooks";
import { callerFor, TEST_ADMIN_KEY, testConfig } from "../helpers/context";
import { DATABASE_KINDS, TEST_DATABASE_URL, useTestDatabase } from "../helpers/databases";
import { startWebhookReceiver, until, type WebhookReceiver } from "../helpers/webhook-receiver";

/**
 * The senders share out their attempts fairly: an endpoint that hangs holds no more than its
 * bound on attempts in flight (WEBHOOK_ENDPOINT_CONCURRENCY, 4), counted across instances, while
 * another endpoint's deliveries go on; and an attempt is timed from when its request is sent, so
 * 32 attempts at once to a slow receiver that answers within WEBHOOK_TIMEOUT_MS all succeed once.
 */

const START = "2026-11-24T09:00:00.000Z";
const BOUND = 4;

let receiver: WebhookReceiver;
/** Answers of /hang held until the test lets them go. */
const held: ServerResponse[] = [];
let hang = true;

beforeAll(async () => {
  receiver = await startWebhookReceiver((received, response) => {
    if (received.path.startsWith("/hang")) {
      if (hang) held.push(response);
      else setTimeout(() => response.end("ok"), 5);
    } else if (received.path.startsWith("/slow")) setTimeout(() => response.end("ok"), 1200);
    else if (received.path.startsWith("/paced")) setTimeout(() => response.end("ok"), 500);
    else response.end("ok");
  });
});
afterAll(() => receiver?.close());
afterEach(() => {
  hang = true;
  for (const response of held.splice(0)) response.destroy();
  receiver.received.splice(0);
});

const letGo = () => {
  hang = false;
  for (const response of held.splice(0)) response.end("ok");
};

const senderOn = (db: Db, clock: ReturnType<typeof fixedClock>, env: Record<string, string>) =>
  new WebhookSender(
    { db, clock },
    { config: testConfig(env).webhooks, secretKey: webhookSecretKey(TEST_ADMIN_KEY) },
  );

async function deliveryStates(db: Db, path: string) {
  return rowsOf<{ status: string; attempt_count: number; n: number }>(
    await db.execute(sql`
      SELECT d.status, d.attempt_count, count(*)::int AS n FROM webhook_deliveries d
      JOIN webhook_endpoints e ON e.id = d.endpoint_id
      WHERE e.url LIKE ${`%${path}%`} GROUP BY 1, 2 ORDER BY 1, 2`),
  );
}

describe.each(DATABASE_KINDS)("fair webhook senders on %s", (kind) => {
  const clock = fixedClock(START);
  const testDatabase = useTestDatabase(kind, { clock, start: START });
  const env = { WEBHOOK_ALLOWED_HOSTS: "127.0.0.1" };

  /** `count` webhook.test events for the endpoint at `path`, a millisecond apart. */
  async function events(path: string, count: number) {
    const admin = callerFor(testDatabase().db, { clock, config: testConfig(env) });
    const endpoint = await admin.webhooks.create({
      url: `${receiver.url}${path}`,
      events: ["agent.created"],
    });
    for (let i = 0; i < count; i++) {
      await admin.webhooks.test({ id: endpoint.id });
      clock.advance(1);
    }
    return endpoint;
  }

  it("holds a hanging endpoint to its bound while another endpoint's deliveries go on", async () => {
    // The hanging endpoint's 40 come first in the order deliveries are claimed in.
    await events("/hang", 40);
    await events("/prompt", 10);
    const sender = senderOn(testDatabase().db, clock, { ...env, WEBHOOK_TIMEOUT_MS: "600000" });
    sender.start();
    try {
      // All 10 delivered while the hanging endpoint's first attempts are still unanswered.
      expect(await until(() => receiver.to("/prompt").length === 10 && held.length === BOUND)).toBe(
        true,
      );
      expect(receiver.open("/hang")).toEqual({ now: BOUND, most: BOUND });
      // Recorded, each at its first attempt, while the hanging endpoint's still hang.
      const prompt = () => deliveryStates(testDatabase().db, "/prompt");
      expect(await until(async () => (await prompt())[0]?.n === 10)).toBe(true);
      expect(await prompt()).toEqual([{ status: "delivered", attempt_count: 1, n: 10 }]);
      expect(held).toHaveLength(BOUND);
      // Answered, the rest go through, never more than the bound at once.
      letGo();
      expect(await until(() => receiver.to("/hang").length === 40)).toBe(true);
      expect(
        await until(async () => (await deliveryStates(testDatabase().db, "/hang"))[0]?.n === 40),
      ).toBe(true);
      expect(receiver.open("/hang")).toEqual({ now: 0, most: BOUND });
      expect(await deliveryStates(testDatabase().db, "/hang")).toEqual([
        { status: "delivered", attempt_count: 1, n: 40 },
      ]);
    } finally {
      await sender.stop(5000);
    }
  });

  it("sends 32 attempts at once to an origin answering in 1.2 s, with a 2 s timeout, each once", async () => {
    // Eight endpoints on one origin, four deliveries each: the sender's 32 attempts at once.
    for (let i = 1; i <= 8; i++) await events(`/slow/${i}`, 4);
    const sender = senderOn(testDatabase().db, clock, { ...env, WEBHOOK_TIMEOUT_MS: "2000" });
    try {
      expect(await sender.pass()).toBe(32);
      await sender.idle();
    } finally {
      await sender.stop(5000);
    }
    expect(receiver.open("/slow")).toEqual({ now: 0, most: 32 });
    const ids = receiver.to("/slow").map((r) => r.headers["webhook-id"]);
    expect(ids).toHaveLength(32);
    expect(new Set(ids).size).toBe(32);
    expect(await deliveryStates(testDatabase().db, "/slow")).toEqual([
      { status: "delivered", attempt_count: 1, n: 32 },
    ]);
  });
});

/** Two senders, each with its own connections, claiming from one PostgreSQL. */
describe.skipIf(!TEST_DATABASE_URL)("two webhook senders on one PostgreSQL", () => {
  const clock = fixedClock(START);
  const testDatabase = useTestDatabase("postgres", { clock, start: START });
  let other: Database;
  beforeAll(() => {
    other = createDatabase({
      kind: "postgres",
      url: testDatabase().url as string,
      maxConnections: 10,
    });
  });
  afterAll(() => other?.close());

  it("hold an endpoint to its bound together, not each", async () => {
    const env = { WEBHOOK_ALLOWED_HOSTS: "127.0.0.1", WEBHOOK_POLL_MS: "20" };
    const admin = callerFor(testDatabase().db, { clock, config: testConfig(env) });
    const hanging = await admin.webhooks.create({
      url: `${receiver.url}/hang`,
      events: ["agent.created"],
    });
    const healthy = await admin.webhooks.create({
      url: `${receiver.url}/prompt`,
      events: ["agent.created"],
    });
    for (let i = 0; i < 200; i++) {
      await admin.webhooks.test({ id: hanging.id });
      clock.advance(1);
    }
    for (let i = 0; i < 10; i++) await admin.webhooks.test({ id: healthy.id });
    const senders = [testDatabase().db, other.db].map((db) =>
      senderOn(db, clock, { ...env, WEBHOOK_TIMEOUT_MS: "600000" }),
    );
    for (const sender of senders) sender.start();
    try {
      expect(await until(() => receiver.to("/prompt").length === 10 && held.length === BOUND)).toBe(
        true,
      );
      expect(receiver.open("/hang")).toEqual({ now: BOUND, most: BOUND });
      // Answered after 5 ms each, the 200 go through both senders' claims, racing each other.
      letGo();
      expect(await until(() => receiver.to("/hang").length === 200, 60_000)).toBe(true);
      expect(
        await until(async () => (await deliveryStates(testDatabase().db, "/hang"))[0]?.n === 200),
      ).toBe(true);
      expect(receiver.open("/hang")).toEqual({ now: 0, most: BOUND });
      expect(new Set(receiver.to("/hang").map((r) => r.headers["webhook-id"])).size).toBe(200);
    } finally {
      await Promise.all(senders.map((sender) => sender.stop(5000)));
    }
  }, 90_000);
});

/** The attempt alone: its deadline runs from when the request is sent, not while it waits. */
describe("a webhook attempt's timeout", () => {
  it("does not count the wait for a connection", async () => {
    const rules = testConfig({ WEBHOOK_ALLOWED_HOSTS: "127.0.0.1" }).webhooks.allowedHosts;
    // 48 attempts on 16 connections to a receiver answering in 0.5 s: the last 16 wait 1 s for
    // a connection, and are answered 0.5 s after they are sent.
    const connections = new Connections({ rules, timeoutMs: 1200, connections: 16 });
    try {
      const results = await Promise.all(
        Array.from({ length: 48 }, (_, i) =>
          attemptDelivery(
            {
              url: `${receiver.url}/paced`,
              secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
              webhookId: `msg_${i}`,
              body: "{}",
              at: new Date(),
            },
            { connections, rules, timeoutMs: 1200 },
          ),
        ),
      );
      expect(results.filter((r) => !r.delivered).map((r) => r.error)).toEqual([]);
      expect(receiver.open("/paced")).toEqual({ now: 0, most: 16 });
    } finally {
      await connections.close();
    }
  });
});
