import { createServer, type Server } from "node:http";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/db/rows";
import { autonomousRuns, webhookEndpoints } from "@/db/schema";
import { fixedClock } from "@/server/kit/clock";
import { createModelRuntime } from "@/server/model-call";
import { emitEvent, fanOutSql } from "@/server/outbox";
import { Scheduler, sweepInterruptedRuns } from "@/server/runs";
import {
  EVENT_BODY_MAX_BYTES,
  WEBHOOK_EVENT_TYPES,
  WebhookSender,
  webhookSecretKey,
} from "@/server/webhooks";
import { callerFor, TEST_ADMIN_KEY, testConfig } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";
import { buildMessage, newAccount, signedBody } from "../helpers/siwe";
import { useFakeOpenAi } from "../helpers/use-fake-openai";

/**
 * The outbox, through the domains' own functions with an injected clock: which statements write
 * which events, with what data (the record the REST API shows, compared field by field), the
 * first refusal by a limit noticed once per period, and the sender's retries through the window
 * to a receiver on loopback, until the endpoint is disabled.
 */

const START = "2026-11-24T09:00:00.000Z";
/** Every event type the service writes, from the list endpoints are checked against. */
const EVERYTHING = WEBHOOK_EVENT_TYPES;

type Event = { type: string; timestamp: string; data: Record<string, unknown> };

describe.each(DATABASE_KINDS)("webhook events on %s", (kind) => {
  const clock = fixedClock(START);
  const testDatabase = useTestDatabase(kind, { clock, start: START });
  const fake = useFakeOpenAi("Done.");
  const admin = (env: Record<string, string> = {}) =>
    callerFor(testDatabase().db, { clock, config: testConfig(env) });

  /** The events written so far, oldest first, each once (whatever the endpoints). */
  async function events(type?: string): Promise<Event[]> {
    const rows = rowsOf<{ body: string }>(
      await testDatabase().db.execute(
        sql`SELECT body FROM webhook_deliveries GROUP BY body ORDER BY min(id)`,
      ),
    );
    const all = rows.map((row) => JSON.parse(row.body) as Event);
    return type ? all.filter((event) => event.type === type) : all;
  }
  const deliveryCount = async () =>
    rowsOf<{ n: number }>(
      await testDatabase().db.execute(sql`SELECT count(*)::int AS n FROM webhook_deliveries`),
    )[0]?.n;
  const subscribe = (events: readonly string[] = EVERYTHING) =>
    admin().webhooks.create({
      url: "https://hooks.example.com/agent-service",
      events: events as (typeof EVERYTHING)[number][],
    });

  it("writes nothing for an event no enabled endpoint subscribes to", async () => {
    await admin().agents.upsert({ aid: "unheard", autonomous_prompt: "Hi." });
    const only = await subscribe(["deployment.status_changed"]);
    await admin().agents.upsert({ aid: "unheard", name: "Still unheard" });
    const disabled = await subscribe(["agent.updated"]);
    await admin().webhooks.update({ id: disabled.id, enabled: false });
    await admin().agents.upsert({ aid: "unheard", name: "Unheard again" });
    await admin().runs.runNow({ aid: "unheard" });
    expect(await deliveryCount()).toBe(0);
    // One endpoint subscribed: one delivery an event; two: two, with one body.
    await admin().webhooks.update({ id: only.id, events: ["agent.updated"] });
    await admin().agents.upsert({ aid: "unheard", name: "Heard once" });
    expect(await deliveryCount()).toBe(1);
    await admin().webhooks.update({ id: disabled.id, enabled: true });
    await admin().agents.upsert({ aid: "unheard", name: "Heard twice" });
    expect(await deliveryCount()).toBe(3);
    expect((await events("agent.updated")).map((e) => e.data.name)).toEqual([
      "Heard once",
      "Heard twice",
    ]);
  });

  it("sends each audit entry as GET /audit shows it, in the change's transaction", async () => {
    await subscribe(["audit.recorded"]);
    await admin().agents.upsert({ aid: "audited-hook", name: "First" });
    clock.advance(1000);
    await admin().agents.upsert({ aid: "audited-hook", name: "Second" });
    // Refused in its transaction: no entry, and no event of one.
    await expect(admin().agents.create({ aid: "audited-hook" })).rejects.toThrow(/exists/);
    const { entries } = await admin().audit.list({ target: "agent:audited-hook" });
    const sent = (await events("audit.recorded")).filter(
      (event) => event.data.target === "agent:audited-hook",
    );
    expect(entries.map((entry) => entry.action)).toEqual(["agent.updated", "agent.created"]);
    expect(sent.map((event) => event.data)).toEqual([...entries].reverse());
    expect(sent.map((event) => event.timestamp)).toEqual([...entries].reverse().map((e) => e.at));
  });

  it("sends agents as GET /agents/{aid} shows them, and the deleted one as it was", async () => {
    await subscribe(EVERYTHING.filter((type) => type !== "audit.recorded"));
    const created = await admin().agents.upsert({ aid: "described", name: "First" });
    clock.advance(1000);
    const updated = await admin().agents.upsert({
      aid: "described",
      quota: { message_limit_daily: 5 },
    });
    clock.advance(1000);
    const last = await admin().agents.get({ aid: "described" });
    await admin().agents.delete({ aid: "described" });
    // A write refused inside its transaction writes no event either.
    await admin().agents.upsert({ aid: "kept" });
    await expect(admin().agents.create({ aid: "kept" })).rejects.toThrow(/exists/);
    const written = await events();
    expect(written.map((e) => e.type)).toEqual([
      "agent.created",
      "agent.updated",
      "agent.deleted",
      "agent.created",
    ]);
    expect(written[0]).toEqual({ type: "agent.created", timestamp: START, data: created.agent });
    expect(written[1]?.data).toEqual(updated.agent);
    expect(written[2]?.data).toEqual(last);
  });

  it("sends runs as GET /agents/{aid}/runs shows them: succeeded, failed, skipped, swept", async () => {
    await subscribe(["run.succeeded", "run.failed", "run.skipped"]);
    // A price, so that the succeeded run has a cost to show.
    await admin().prices.set({
      model: "fake-model",
      input_per_million: 0.15,
      output_per_million: 0.6,
    });
    const model = (env: Record<string, string> = {}) =>
      createModelRuntime(
        testConfig({ LLM_BASE_URL: fake().baseUrl, LLM_MAX_RETRIES: "0", ...env }),
      );
    const agent = (aid: string, fields: Record<string, unknown> = {}) =>
      admin().agents.upsert({
        aid,
        model: "fake-model",
        autonomous_enabled: true,
        autonomous_minutes: 5,
        autonomous_prompt: "Check the queue.",
        ...fields,
      } as { aid: string });
    await agent("succeeds");
    await agent("skips", { quota: { autonomous_limit_monthly: 0 } });
    const scheduler = new Scheduler(
      { db: testDatabase().db, clock, model: model() },
      { tickMs: 1000, batchSize: 10, concurrency: 4 },
    );
    await scheduler.tick();
    await scheduler.idle();
    fake().behave({ kind: "error", status: 500 });
    await agent("fails");
    await scheduler.tick();
    await scheduler.idle();
    // A run left running by a process that died, with tool calls and usage of every shape.
    await testDatabase()
      .db.insert(autonomousRuns)
      .values({
        aid: "succeeds",
        trigger: "manual",
        dueAt: clock.now(),
        startedAt: clock.now(),
        outcome: "running",
        toolCalls: [
          {
            id: "call_1",
            step: 1,
            server: "calc",
            name: "add",
            arguments: { a: 1, b: [2, { c: null }] },
            result: '3 ✓ "quoted"',
            error: null,
            duration_ms: 12.5,
          },
        ],
        inputTokens: 1234,
        outputTokens: 0,
        tokensEstimated: null,
        cost: 0.000_016_5,
        quotaMonth: "2026-11-01",
      });
    clock.advance(3_600_000);
    expect(await sweepInterruptedRuns({ db: testDatabase().db, clock }, 60_000)).toBe(1);

    const written = await events();
    expect(written.map((e) => `${e.type} ${e.data.aid}`).sort()).toEqual([
      "run.failed fails",
      "run.failed succeeds",
      "run.skipped skips",
      "run.succeeded succeeds",
    ]);
    for (const event of written) {
      const { runs } = await admin().runs.list({ aid: event.data.aid as string, limit: 50 });
      const run = runs.find((r) => r.id === event.data.id);
      expect(event.data, event.type).toEqual(run);
      expect(event.timestamp).toBe(run?.finished_at);
    }
    const succeeded = written.find((e) => e.type === "run.succeeded");
    expect(succeeded?.data.usage).toEqual({
      input_tokens: 10,
      output_tokens: 5,
      estimated: false,
      cost: expect.any(Number),
    });
  });

  it("sends agent.limit_reached for the first refusal by a limit in its period only", async () => {
    await subscribe(["agent.limit_reached"]);
    await admin().agents.upsert({ aid: "limited", quota: { message_limit_daily: 1 } });
    const chat = () => admin().chat.send({ aid: "limited", q: "hello" });
    const anonymous = () =>
      callerFor(testDatabase().db, { clock, admin: false }).chat.send({ aid: "limited", q: "hi" });
    await chat();
    for (let i = 0; i < 3; i++) await expect(anonymous()).rejects.toThrow(/Daily message limit/);
    expect(await events()).toHaveLength(1);
    const [first] = await events();
    expect(first?.data).toMatchObject({
      aid: "limited",
      limit: "message_limit_daily",
      limit_value: 1,
      period: "daily",
      kind: "message",
      resets_at: "2026-11-25T00:00:00.000Z",
      detail: expect.stringMatching(/^Daily message limit reached for agent 'limited'/),
      quota: expect.objectContaining({ message_count_daily: 1, message_limit_daily: 1 }),
    });
    // The next day is another period.
    clock.set("2026-11-25T08:00:00Z");
    await chat();
    await expect(anonymous()).rejects.toThrow(/Daily/);
    await expect(anonymous()).rejects.toThrow(/Daily/);
    expect(await events()).toHaveLength(2);
    // A raised limit reached is news, and so is the limit reached again after a reset.
    await admin().agents.upsert({ aid: "limited", quota: { message_limit_daily: 2 } });
    await chat();
    await expect(anonymous()).rejects.toThrow(/Daily/);
    expect(await events()).toHaveLength(3);
    await admin().agents.resetQuota({ aid: "limited" });
    await chat();
    await chat();
    await expect(anonymous()).rejects.toThrow(/Daily/);
    expect((await events()).map((e) => e.data.limit_value)).toEqual([1, 1, 2, 2]);
  });

  it("sends deployment.status_changed with the change and the last 5 changes, not for the same status again", async () => {
    await subscribe(["deployment.status_changed"]);
    const config = testConfig({ PUBLIC_URL: "https://agents.example.com" });
    const caller = () => callerFor(testDatabase().db, { clock, config });
    const worker = newAccount();
    const { id, request_id } = await caller().deployments.create({
      user_address: newAccount().address,
      proposal: {
        init_cost: 1,
        maintenance_cost: 1,
        pay_period: 1,
        accept_currency: "USDC",
        cost: 1,
        fit: 1,
        throughput: 1,
        sla: 1,
        error_rate: 0,
        rank: 1,
      },
    });
    const sign = async (status: string) => {
      const { nonce } = await caller().nonces.issue({ user_address: worker.address });
      const message = buildMessage(
        "viem",
        worker,
        { request_id, status },
        {
          domain: "agents.example.com",
          uri: "https://agents.example.com/v1/deployments/worker/status",
          chainId: 1,
          nonce,
          issuedAt: clock.now(),
        },
      );
      return caller().deployments.updateStatus(await signedBody(worker, message));
    };
    await sign("pick_up");
    await sign("pick_up");
    await sign("deploying");
    const written = await events();
    expect(written.map((e) => e.data.Status)).toEqual(["pick_up", "deploying"]);
    const now = await caller().deployments.get({ id });
    expect(written[1]?.data).toEqual({ ...now, from_status: "pick_up", to_status: "deploying" });
    expect(written[0]?.data).toMatchObject({ from_status: "init", to_status: "pick_up" });
    expect(written[0]?.data.history).toHaveLength(1);
    // Past 5 changes, an event carries the last 5 only, and says how many there are in all.
    for (const status of ["deployed", "pick_up", "deploying", "deployed"]) await sign(status);
    const record = await caller().deployments.get({ id });
    const latest = (await events()).at(-1);
    expect(latest?.data).toEqual({
      ...record,
      history: record.history.slice(-5),
      from_status: "deploying",
      to_status: "deployed",
    });
    expect(latest?.data.history_total).toBe(7);
    // The admin's own change is an event too, with the history that records it.
    await caller().deployments.changeStatus({ id, status: "failed" });
    const after = await events();
    expect(after.map((e) => e.data.Status)).toEqual([
      "pick_up",
      "deploying",
      "deployed",
      "pick_up",
      "deploying",
      "deployed",
      "failed",
    ]);
    const history = (after.at(-1)?.data.history ?? []) as unknown[];
    expect(history).toHaveLength(5);
    expect(history.at(-1)).toMatchObject({
      to_status: "failed",
      signer_address: "admin",
    });
  });

  it("writes an event whose body would pass 1 MiB trimmed to its small members, saying so", async () => {
    await subscribe(["agent.updated", "run.succeeded"]);
    const big = "x".repeat(1024 * 1024);
    await emitEvent(testDatabase().db, {
      type: "agent.updated",
      at: clock.now(),
      data: { aid: "huge", name: "Huge", prompt: big, note: "y".repeat(2000) },
    });
    // Data made in SQL, as the runs' events are, is held to the same bound.
    await testDatabase().db.execute(
      fanOutSql({
        type: "run.succeeded",
        at: clock.now().toISOString(),
        data: sql`json_build_object('id', 7, 'aid', 'huge', 'reply', repeat('z', 1100000))`,
      }),
    );
    // One just under the bound is sent whole.
    const whole = "w".repeat(1024 * 1024 - 200);
    await emitEvent(testDatabase().db, {
      type: "agent.updated",
      at: clock.now(),
      data: { aid: "whole", prompt: whole },
    });
    const sizes = rowsOf<{ bytes: number }>(
      await testDatabase().db.execute(
        sql`SELECT octet_length(body) AS bytes FROM webhook_deliveries ORDER BY id`,
      ),
    ).map((row) => row.bytes);
    expect(sizes.every((bytes) => bytes <= EVENT_BODY_MAX_BYTES)).toBe(true);
    const [agent, run, kept] = (await events()) as (Event & {
      truncated?: boolean;
      omitted?: string[];
    })[];
    expect(agent).toEqual({
      type: "agent.updated",
      timestamp: START,
      data: { aid: "huge", name: "Huge" },
      truncated: true,
      omitted: ["prompt", "note"],
    });
    expect(run).toMatchObject({
      type: "run.succeeded",
      data: { id: 7, aid: "huge" },
      truncated: true,
      omitted: ["reply"],
    });
    expect(kept?.data.prompt).toBe(whole);
    expect(kept?.truncated).toBeUndefined();
  });

  describe("the sender", () => {
    let receiver: Server;
    let answer = 500;
    const received: { id: string; at: number }[] = [];
    beforeAll(async () => {
      receiver = createServer((request, response) => {
        received.push({ id: String(request.headers["webhook-id"]), at: clock.now().getTime() });
        request.resume();
        response.statusCode = answer;
        response.end("nope");
      });
      await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", () => resolve()));
    });
    afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

    it("retries with doubling delays through the window, then disables the endpoint, saying so", async () => {
      received.splice(0);
      answer = 500;
      const env = {
        WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
        WEBHOOK_RETRY_BASE_S: "5",
        WEBHOOK_RETRY_WINDOW_H: String(60 / 3600),
      };
      const { port } = receiver.address() as { port: number };
      const endpoint = await admin(env).webhooks.create({
        url: `http://127.0.0.1:${port}/hook`,
        events: ["agent.created"],
      });
      const config = testConfig(env);
      const sender = new WebhookSender(
        { db: testDatabase().db, clock },
        {
          config: config.webhooks,
          secretKey: webhookSecretKey(TEST_ADMIN_KEY),
          random: () => 0,
        },
      );
      await admin().agents.upsert({ aid: "unlucky" });
      const delivery = async () =>
        (await admin().webhooks.deliveries({ id: endpoint.id, limit: 20 })).deliveries[0];
      for (let attempt = 1; attempt <= 10; attempt++) {
        expect(await sender.pass()).toBe(1);
        await sender.idle();
        const now = await delivery();
        if (now?.status !== "pending") break;
        // Nothing is sent before it is due.
        expect(await sender.pass()).toBe(0);
        clock.set(now.next_attempt_at as string);
      }
      await sender.stop(1000);
      const start = Date.parse(START);
      // 0, 5, 15, 35 s; the next, doubled, would be at 75 s: past the window, so at 60 s.
      expect(received.map((r) => (r.at - start) / 1000)).toEqual([0, 5, 15, 35, 60]);
      expect(new Set(received.map((r) => r.id)).size).toBe(1);
      const gaveUp = await delivery();
      expect(gaveUp).toMatchObject({ status: "failed", attempt_count: 5, next_attempt_at: null });
      expect(gaveUp?.attempts.map((a) => a.status_code)).toEqual([500, 500, 500, 500, 500]);
      expect(gaveUp?.attempts[0]).toMatchObject({
        response_excerpt: "nope",
        error: "The endpoint answered HTTP 500.",
      });
      const disabled = await admin().webhooks.get({ id: endpoint.id });
      expect(disabled).toMatchObject({ enabled: false, failing_since: START });
      expect(disabled.disabled_reason).toMatch(
        /^Disabled at 2026-11-24T09:01:00.000Z: every delivery failed for the whole retry window \(60 s\); the last attempt: The endpoint answered HTTP 500\. PATCH/,
      );
      // Disabled: new events are not written for it, nor tests sent.
      await admin().agents.upsert({ aid: "unheard-while-off" });
      expect((await admin().webhooks.deliveries({ id: endpoint.id })).deliveries).toHaveLength(1);
      // Enabled again, it is healthy until it fails again; the delivery retried by hand succeeds.
      answer = 200;
      const enabled = await admin().webhooks.update({ id: endpoint.id, enabled: true });
      expect(enabled).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null });
      const retried = await admin().webhooks.retryDelivery({
        id: endpoint.id,
        delivery_id: gaveUp?.id as number,
      });
      expect(retried).toMatchObject({ status: "pending", webhook_id: gaveUp?.webhook_id });
      const again = new WebhookSender(
        { db: testDatabase().db, clock },
        {
          config: config.webhooks,
          secretKey: webhookSecretKey(TEST_ADMIN_KEY),
        },
      );
      expect(await again.pass()).toBe(1);
      await again.stop(5000);
      expect(await delivery()).toMatchObject({ status: "delivered", attempt_count: 6 });
      expect(received.at(-1)?.id).toBe(gaveUp?.webhook_id);
    });

    it("sends nothing to a cloud metadata address, even one the setting lists", async () => {
      const env = {
        WEBHOOK_ALLOWED_HOSTS: "127.0.0.1,169.254.169.254,[::ffff:a9fe:a9fe]",
        WEBHOOK_TIMEOUT_MS: "500",
      };
      const endpoint = await admin(env).webhooks.create({
        url: "https://hooks.example.com/metadata",
        events: ["agent.created"],
      });
      // Stored past the check made when saving, as an endpoint saved before the rule would be.
      await testDatabase()
        .db.update(webhookEndpoints)
        .set({ url: "http://[::ffff:a9fe:a9fe]/latest/meta-data/" })
        .where(eq(webhookEndpoints.id, endpoint.id));
      const sender = new WebhookSender(
        { db: testDatabase().db, clock },
        { config: testConfig(env).webhooks, secretKey: webhookSecretKey(TEST_ADMIN_KEY) },
      );
      await admin().agents.upsert({ aid: "metadata-seeker" });
      expect(await sender.pass()).toBe(1);
      await sender.idle();
      await sender.stop(1000);
      const [delivery] = (await admin().webhooks.deliveries({ id: endpoint.id })).deliveries;
      expect(delivery?.attempts[0]).toMatchObject({
        status_code: null,
        error:
          "The endpoint's URL is on a cloud metadata address, which is never allowed, listed or not; nothing was sent.",
      });
    });

    it("disables an endpoint at the end of its event's window, however late the first attempt", async () => {
      answer = 500;
      const env = { WEBHOOK_ALLOWED_HOSTS: "127.0.0.1", WEBHOOK_RETRY_WINDOW_H: String(60 / 3600) };
      const { port } = receiver.address() as { port: number };
      const endpoint = await admin(env).webhooks.create({
        url: `http://127.0.0.1:${port}/late`,
        events: ["agent.created"],
      });
      const sender = new WebhookSender(
        { db: testDatabase().db, clock },
        {
          config: testConfig(env).webhooks,
          secretKey: webhookSecretKey(TEST_ADMIN_KEY),
          random: () => 0,
        },
      );
      const eventAt = clock.now().toISOString();
      await admin().agents.upsert({ aid: "late-first-try" });
      // The first attempt comes 10 s after the event (a busy sender, a restart).
      clock.set(new Date(Date.parse(eventAt) + 10_000).toISOString());
      const delivery = async () =>
        (await admin().webhooks.deliveries({ id: endpoint.id, limit: 20 })).deliveries[0];
      for (let attempt = 1; attempt <= 10; attempt++) {
        expect(await sender.pass()).toBe(1);
        await sender.idle();
        const now = await delivery();
        if (now?.status !== "pending") break;
        clock.set(now.next_attempt_at as string);
      }
      await sender.stop(1000);
      expect(await delivery()).toMatchObject({ status: "failed" });
      // The one event failed for its whole window: the endpoint is off now, not after the next.
      expect(await admin().webhooks.get({ id: endpoint.id })).toMatchObject({
        enabled: false,
        failing_since: eventAt,
      });
    });
  });
});
