import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase } from "@/db/client";
import { createThrowawayPostgres, TEST_DATABASE_URL } from "../helpers/database-kinds";
import { type FakeOpenAi, startFakeOpenAi } from "../helpers/fake-openai";
import { pgbouncerInstalled, type RunningPgBouncer, startPgBouncer } from "../helpers/pgbouncer";
import { type RunningServer, sendAsAdmin, startServer } from "../helpers/server";
import { startWebhookReceiver, until, type WebhookReceiver } from "../helpers/webhook-receiver";

/**
 * Two instances behind PgBouncer in transaction pooling mode (DATABASE_POOL_MODE=transaction),
 * four server connections for their twenty: the way past one PostgreSQL's connection limit. Both
 * start (and migrate) at once; a limit holds exactly across them; what one creates the other
 * finds at once; each scheduled run is claimed once; each webhook event is delivered once. An
 * instance left in session mode refuses to start rather than run statements on the wrong
 * connection.
 */

if (TEST_DATABASE_URL && !pgbouncerInstalled)
  throw new Error("PgBouncer is not installed (/usr/sbin/pgbouncer): `apt-get install pgbouncer`.");

describe.skipIf(!TEST_DATABASE_URL)("two instances behind PgBouncer, transaction pooling", () => {
  let fake: FakeOpenAi;
  let receiver: WebhookReceiver;
  let database: { url: string; drop(): Promise<void> };
  let bouncer: RunningPgBouncer;
  let a: RunningServer;
  let b: RunningServer;

  beforeAll(async () => {
    fake = await startFakeOpenAi();
    receiver = await startWebhookReceiver((_, response) => void response.end("ok"));
    database = await createThrowawayPostgres();
    bouncer = await startPgBouncer(database.url, { serverConnections: 4 });
    const env = {
      DATABASE_URL: bouncer.url,
      DATABASE_POOL_MODE: "transaction",
      WEB_CONCURRENCY: "1",
      DATABASE_POOL_SIZE: "10",
      LLM_BASE_URL: fake.baseUrl,
      LLM_API_KEY: "sk-test",
      LLM_MAX_RETRIES: "0",
      SCHEDULER_TICK_MS: "100",
      WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}`,
    };
    // At once: both migrate the new database through PgBouncer, one after the other.
    [a, b] = (await Promise.all([startServer(env), startServer(env)])) as [
      RunningServer,
      RunningServer,
    ];
  }, 120_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await bouncer?.stop();
    await receiver?.close();
    await fake?.close();
    await database?.drop();
  });

  const send = sendAsAdmin;

  it("refuses to start through it without DATABASE_POOL_MODE=transaction, saying so", async () => {
    const refused = await startServer({
      DATABASE_URL: bouncer.url,
      WEB_CONCURRENCY: "1",
      SCHEDULER: "off",
    }).then(
      async (started) => {
        await started.stop();
        return "started";
      },
      (error: Error) => error.message,
    );
    expect(refused).toMatch(/The server exited \(1\)/);
    expect(refused).toMatch(
      /DATABASE_POOL_MODE: DATABASE_URL leads to a pooler in transaction mode/,
    );
  });

  it("tells transaction pooling every time, while other clients keep its connections busy", async () => {
    // Busy clients take the server connection the probe has just left, between its statements.
    const busy = postgres(bouncer.url, { max: 8, prepare: false, onnotice: () => {} });
    let running = true;
    const load = Array.from({ length: 8 }, async () => {
      while (running) await busy`SELECT pg_sleep(0.001)`;
    });
    const pooled = createDatabase({ kind: "postgres", url: bouncer.url, poolMode: "transaction" });
    const direct = createDatabase({ kind: "postgres", url: database.url });
    try {
      const seen = { pooled: [] as boolean[], direct: [] as boolean[] };
      for (let round = 0; round < 20; round += 1) {
        seen.pooled.push(await pooled.sharesServerConnections());
        seen.direct.push(await direct.sharesServerConnections());
      }
      expect(seen.pooled).toEqual(Array(20).fill(true));
      expect(seen.direct).toEqual(Array(20).fill(false));
    } finally {
      running = false;
      await Promise.all(load);
      await Promise.all([busy.end(), pooled.close(), direct.close()]);
    }
  });

  it("holds a daily limit of 100 exactly over 300 chats at once through both instances", async () => {
    fake.behave({ kind: "reply", text: "ok", delayMs: 20 });
    const made = await send(a, "POST", "/agents", {
      aid: "limited",
      rate_limit_rpm: null,
      quota: { message_limit_daily: 100 },
    });
    expect(made.status).toBe(201);
    const statuses = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        fetch(`${(i % 2 ? a : b).url}/limited/chat?q=q${i}`, {
          headers: { connection: "close" },
        }).then((response) => response.status),
      ),
    );
    const counts: Record<number, number> = {};
    for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
    expect(counts).toEqual({ 200: 100, 429: 200 });
    const agent = await send(b, "GET", "/agents/limited");
    expect(agent.json.quota).toMatchObject({ message_count_daily: 100, message_count_total: 100 });
  });

  it("finds at once, in the other instance, an agent one instance has just created", async () => {
    fake.behave({ kind: "reply", text: "ok" });
    for (let i = 0; i < 20; i++) {
      const aid = `fresh-${i}`;
      expect((await send(a, "POST", "/agents", { aid, autonomous_prompt: "Hi." })).status).toBe(
        201,
      );
      expect((await fetch(`${b.url}/${aid}/chat?q=hello`)).status).toBe(200);
      const run = await send(b, "POST", `/agents/${aid}/runs`);
      expect(run.status, JSON.stringify(run.json)).toBe(202);
      expect(run.json.outcome).toBe("succeeded");
    }
  });

  it("claims each scheduled run once between the two schedulers", async () => {
    fake.behave({ kind: "reply", text: "done", delayMs: 50 });
    const aids = Array.from({ length: 20 }, (_, i) => `scheduled-${i}`);
    for (const aid of aids) {
      const made = await send(aid.endsWith("1") ? b : a, "POST", "/agents", {
        aid,
        autonomous_enabled: true,
        autonomous_minutes: 60,
        autonomous_prompt: "Summarise the day.",
      });
      expect(made.status).toBe(201);
    }
    const finished = async () => {
      const runs = await Promise.all(
        aids.map(async (aid) => (await send(a, "GET", `/agents/${aid}/runs`)).json.runs),
      );
      return runs.every((list: Array<{ outcome: string }>) =>
        list.some((run) => run.outcome !== "running"),
      )
        ? runs
        : undefined;
    };
    expect(await until(async () => (await finished()) !== undefined, 30_000)).toBe(true);
    // Any second claim would have come within the ticks since.
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const aid of aids) {
      const { json } = await send(b, "GET", `/agents/${aid}/runs`);
      expect(json.runs, aid).toHaveLength(1);
      expect(json.runs[0].outcome).toBe("succeeded");
    }
  });

  it("delivers each webhook event once, whichever instance's sender claims it", async () => {
    const hook = await send(a, "POST", "/webhooks", {
      url: `${receiver.url}/created`,
      events: ["agent.created"],
    });
    expect(hook.status).toBe(201);
    const made = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        send(i % 2 ? a : b, "POST", "/agents", { aid: `hooked-${i}` }),
      ),
    );
    expect(made.map((m) => m.status)).toEqual(Array(100).fill(201));
    expect(await until(() => receiver.to("/created").length >= 100, 30_000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const ids = receiver.to("/created").map((r) => r.headers["webhook-id"]);
    expect(ids).toHaveLength(100);
    expect(new Set(ids).size).toBe(100);
  });
});
