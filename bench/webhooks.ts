/**
 * The webhook row of `npm run bench` (`BENCH_ONLY=webhooks` runs it alone, and so does
 * `npx tsx bench/webhooks.ts`, after `npm run build`): how long 1,000 events take to reach a
 * receiver on loopback (node:http, answering 200 at once), through the outbox and an instance's
 * sender, on PostgreSQL, with the defaults (WEBHOOK_CONCURRENCY 32, WEBHOOK_POLL_MS 250).
 *
 * - `live`: 1,000 agents created (16 requests at once), each an `agent.created` event: from the
 *   first request to the last delivery, and how long after the last event was written.
 * - `backlog`: 1,000 events written while no sender looked (WEBHOOK_POLL_MS of an hour), then a
 *   new instance drains them: from the first delivery received to the last.
 * - `beside_hanging`: 200 events, each to an endpoint whose receiver never answers
 *   (WEBHOOK_TIMEOUT_MS of 2 s) and to one that answers at once: the healthy one's delay from
 *   each event's `timestamp` to its delivery, and the most attempts the hanging one had at once.
 *
 * Each delivery but the hanging endpoint's is checked: signed (Standard Webhooks), its
 * webhook-id never seen before.
 */
import type { ServerResponse } from "node:http";
import { pathToFileURL } from "node:url";
import { createDatabase } from "@/db/client";
import { startServer, TEST_ADMIN_KEY } from "../tests/helpers/server";
import { createThrowawayDatabase } from "../tests/helpers/throwaway-postgres";
import { startWebhookReceiver, until, verified } from "../tests/helpers/webhook-receiver";

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS || 1000);
const AT_ONCE = 16;
const BESIDE_HANGING = 200;

export type WebhookRow = {
  events: number;
  live: { written_s: number; delivered_s: number; after_last_write_s: number };
  backlog: { drained_s: number; per_second: number };
  beside_hanging: { events: number; p50_ms: number; max_ms: number; hanging_at_once: number };
  duplicates: number;
};

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };

export async function runWebhookBenchmarks(databaseUrl: string): Promise<WebhookRow> {
  const database = createDatabase({ kind: "postgres", url: databaseUrl });
  await database.migrate();
  await database.close();
  const receiver = await startWebhookReceiver();
  const env = {
    DATABASE_URL: databaseUrl,
    SCHEDULER: "off",
    WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}`,
  };
  const post = async (url: string, path: string, body: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify(body),
    });
    if (response.status !== 201) throw new Error(`POST ${path}: ${response.status}`);
    return response.json() as Promise<{ id: string; secret: string }>;
  };
  const createAgents = async (url: string, prefix: string, events = EVENTS) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: AT_ONCE }, async () => {
        while (next < events) await post(url, "/agents", { aid: `${prefix}-${next++}` });
      }),
    );
  };
  const seen = new Set<string>();
  let duplicates = 0;
  const count = (path: string) => receiver.to(path).length;

  try {
    // Live: events written and delivered at once.
    const live = await startServer(env);
    let hook: { id: string; secret: string };
    // Date.now(), as the receiver stamps what it gets.
    const started = Date.now();
    let written = 0;
    try {
      hook = await post(live.url, "/webhooks", {
        url: `${receiver.url}/live`,
        events: ["agent.created"],
      });
      await createAgents(live.url, "live");
      written = Date.now();
      if (!(await until(() => count("/live") >= EVENTS, 120_000)))
        throw new Error(`only ${count("/live")} of ${EVENTS} events arrived`);
    } finally {
      await live.stop();
    }
    const lastLive = Math.max(...receiver.to("/live").map((r) => r.at));
    const liveRow = {
      written_s: round((written - started) / 1000),
      delivered_s: round((lastLive - started) / 1000),
      after_last_write_s: round((lastLive - written) / 1000),
    };

    // Backlog: written while no sender looks, then drained by a new instance.
    const writer = await startServer({ ...env, WEBHOOK_POLL_MS: "3600000" });
    try {
      await post(writer.url, "/webhooks", {
        url: `${receiver.url}/backlog`,
        events: ["agent.created"],
      });
      await createAgents(writer.url, "backlog");
    } finally {
      await writer.stop();
    }
    const drainer = await startServer(env);
    try {
      if (!(await until(() => count("/backlog") >= EVENTS, 120_000)))
        throw new Error(`only ${count("/backlog")} of ${EVENTS} backlog events arrived`);
    } finally {
      await drainer.stop();
    }
    const times = receiver.to("/backlog").map((r) => r.at);
    const drained = (Math.max(...times) - Math.min(...times)) / 1000;

    // Beside a hanging endpoint: its answers are held until the end.
    const held: ServerResponse[] = [];
    receiver.answer = (received, response) => {
      if (received.path.startsWith("/hang")) held.push(response);
      else response.end("ok");
    };
    const fair = await startServer({ ...env, WEBHOOK_TIMEOUT_MS: "2000" });
    try {
      for (const path of ["/hang", "/healthy"])
        await post(fair.url, "/webhooks", {
          url: `${receiver.url}${path}`,
          events: ["agent.created"],
        });
      await createAgents(fair.url, "fair", BESIDE_HANGING);
      if (!(await until(() => count("/healthy") >= BESIDE_HANGING, 120_000)))
        throw new Error(
          `only ${count("/healthy")} of ${BESIDE_HANGING} events reached the healthy endpoint`,
        );
    } finally {
      for (const response of held.splice(0)) response.destroy();
      await fair.stop();
    }
    const delays = receiver
      .to("/healthy")
      .map((r) => r.at - Date.parse((JSON.parse(r.body) as { timestamp: string }).timestamp))
      .sort((a, b) => a - b);

    for (const received of receiver.received) {
      // The hanging endpoint's deliveries are sent again after each timeout, by design.
      if (received.path.startsWith("/hang")) continue;
      const id = received.headers["webhook-id"] as string;
      if (seen.has(id)) duplicates++;
      seen.add(id);
    }
    for (const received of receiver.to("/live").slice(0, 100)) verified(hook.secret, received);
    const row: WebhookRow = {
      events: EVENTS,
      live: liveRow,
      backlog: { drained_s: round(drained), per_second: Math.round(EVENTS / drained) },
      beside_hanging: {
        events: BESIDE_HANGING,
        p50_ms: delays[Math.floor(delays.length / 2)] ?? 0,
        max_ms: delays.at(-1) ?? 0,
        hanging_at_once: receiver.open("/hang").most,
      },
      duplicates,
    };
    console.info(
      [
        `webhooks (${EVENTS} events to a receiver on loopback):`,
        `  live: ${EVENTS} agents created in ${row.live.written_s} s (${AT_ONCE} at once); the last event delivered ${row.live.delivered_s} s after the first request, ${row.live.after_last_write_s} s after the last was written`,
        `  backlog: ${EVENTS} pending events drained by a new instance in ${row.backlog.drained_s} s (${row.backlog.per_second}/s)`,
        `  beside a hanging endpoint: the healthy one's ${BESIDE_HANGING} events delivered p50 ${row.beside_hanging.p50_ms} ms, max ${row.beside_hanging.max_ms} ms after they happened; the hanging one had ${row.beside_hanging.hanging_at_once} attempts at once`,
        `  duplicates: ${row.duplicates}`,
      ].join("\n"),
    );
    return row;
  } finally {
    await receiver.close();
  }
}

const round = (n: number) => Math.round(n * 100) / 100;

// Run on its own: a throwaway database on BENCH_DATABASE_URL's server, dropped afterwards.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  const database = await createThrowawayDatabase(server, "agent_bench_webhooks");
  try {
    await runWebhookBenchmarks(database.url);
  } finally {
    await database.drop();
  }
}
