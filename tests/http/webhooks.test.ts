import { lookup } from "node:dns/promises";
import { hostname } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isNonPublicAddress } from "@/server/kit/outgoing";
import { DATABASE_KINDS } from "../helpers/database-kinds";
import type { RunningServer } from "../helpers/server";
import { TEST_ADMIN_KEY } from "../helpers/server";
import { startServerOn } from "../helpers/server-on";
import {
  type Received,
  startWebhookReceiver,
  until,
  verified,
  type WebhookReceiver,
} from "../helpers/webhook-receiver";

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };
const TIMEOUT_MS = 1500;

/**
 * Signed webhooks over HTTP, on the built service: the endpoints' CRUD and every refusal, the
 * secret shown once and rotated, events verified with the `standardwebhooks` package as a
 * receiver would, retries with one webhook-id, and the attacks on the new surface: internal
 * addresses (literal, spelled otherwise, or behind a name), redirects, huge and slow answers.
 */
describe.each(DATABASE_KINDS)("webhooks over HTTP on %s", (kind) => {
  let server: RunningServer;
  /** The receivers the service may reach: its port is listed in WEBHOOK_ALLOWED_HOSTS. */
  let hooks: WebhookReceiver;
  /** An internal service on loopback that nothing may reach: its port is not listed. */
  let internal: WebhookReceiver;
  const flaky = new Map<string, number>();

  beforeAll(async () => {
    hooks = await startWebhookReceiver(async (received, response) => {
      const path = received.path;
      if (path.startsWith("/flaky")) {
        const id = received.headers["webhook-id"] as string;
        const seen = (flaky.get(id) ?? 0) + 1;
        flaky.set(id, seen);
        response.statusCode = seen <= 2 ? 503 : 200;
        response.end(seen <= 2 ? "not yet" : "ok");
      } else if (path.startsWith("/redirect")) {
        response.writeHead(302, { location: `${hooks.url}/landed` }).end();
      } else if (path.startsWith("/huge")) {
        // 8 MiB, unless the client goes first.
        response.writeHead(200, { "content-type": "text/plain" });
        const chunk = `${"y".repeat(1023)}\n`;
        for (let i = 0; i < 8 * 1024 && !response.destroyed; i++)
          if (!response.write(chunk)) await new Promise((r) => response.once("drain", r));
        response.end();
      } else if (path.startsWith("/slow")) {
        // Never answers: the service's time-out must end the attempt.
      } else if (path.startsWith("/trickle")) {
        response.writeHead(200);
        response.write("first bytes, ");
        // The rest never comes within the time-out.
      } else if (path.startsWith("/teapot")) {
        response.statusCode = 418;
        response.end(`${"é".repeat(150)}<secret internals>`);
      } else {
        response.end("ok");
      }
    });
    internal = await startWebhookReceiver();
    server = await startServerOn(kind, {
      // The metadata addresses are listed too: a listing cannot open them.
      WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${hooks.port},169.254.169.254,[::ffff:a9fe:a9fe],[fd00:ec2::254]`,
      WEBHOOK_RETRY_BASE_S: "0.2",
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    });
  });
  afterAll(async () => {
    await server?.stop();
    await hooks?.close();
    await internal?.close();
  });

  const send = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = admin,
  ) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers,
      ...(body === undefined
        ? {}
        : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      type: response.headers.get("content-type"),
      text,
      json: text ? JSON.parse(text) : undefined,
    };
  };
  const create = async (path: string, events: string[] = ["agent.created"], extra = {}) => {
    const made = await send("POST", "/webhooks", { url: `${hooks.url}${path}`, events, ...extra });
    expect(made.status, made.text).toBe(201);
    return made.json as { id: string; secret: string; url: string };
  };
  const deliveries = async (id: string) =>
    (await send("GET", `/webhooks/${id}/deliveries?limit=100`)).json.deliveries as {
      id: number;
      webhook_id: string;
      status: string;
      event_type: string;
      attempts: {
        status_code: number | null;
        response_excerpt: string | null;
        error: string | null;
        duration_ms: number;
      }[];
    }[];
  const test = async (id: string) => {
    const sent = await send("POST", `/webhooks/${id}/test`);
    expect(sent.status, sent.text).toBe(202);
    return sent.json as { id: number; webhook_id: string };
  };
  const settled = (id: string, deliveryId: number) =>
    until(async () => {
      const found = (await deliveries(id)).find((d) => d.id === deliveryId);
      return found !== undefined && found.attempts.length > 0;
    });

  it("makes, reads, changes and deletes endpoints, showing the secret once", async () => {
    const made = await send("POST", "/webhooks", {
      url: `${hooks.url}/crud`,
      events: ["run.failed", "agent.limit_reached", "run.failed"],
      description: "Ops alerts",
    });
    expect(made.status).toBe(201);
    expect(made.json).toEqual({
      id: expect.stringMatching(/^wh_[0-9a-f]{16}$/),
      url: `${hooks.url}/crud`,
      description: "Ops alerts",
      events: ["run.failed", "agent.limit_reached"],
      enabled: true,
      disabled_reason: null,
      failing_since: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const { id, secret } = made.json;
    expect(Buffer.from(secret.slice("whsec_".length), "base64").length).toBeGreaterThanOrEqual(24);
    const { secret: _, ...record } = made.json;

    const listed = await send("GET", "/webhooks");
    expect(listed.status).toBe(200);
    expect(listed.json.webhooks).toContainEqual(record);
    expect((await send("GET", `/webhooks/${id}`)).json).toEqual(record);

    const changed = await send("PATCH", `/webhooks/${id}`, {
      events: ["deployment.status_changed"],
      description: null,
    });
    expect(changed.status).toBe(200);
    expect(changed.json).toMatchObject({
      events: ["deployment.status_changed"],
      description: null,
    });
    const off = await send("PATCH", `/webhooks/${id}`, { enabled: false });
    expect(off.json).toMatchObject({
      enabled: false,
      disabled_reason: expect.stringMatching(/^Disabled by an admin at .*"enabled": true/),
    });
    expect((await send("POST", `/webhooks/${id}/test`)).status).toBe(409);
    const on = await send("PATCH", `/webhooks/${id}`, { enabled: true });
    expect(on.json).toMatchObject({ enabled: true, disabled_reason: null });

    // The secret is in the creation's answer and nowhere else.
    for (const path of ["/webhooks", `/webhooks/${id}`, `/webhooks/${id}/deliveries`])
      expect((await send("GET", path)).text).not.toContain(secret.slice(6, 30));
    expect(on.text).not.toContain(secret.slice(6, 30));
    expect(server.output()).not.toContain(secret.slice(6, 30));

    expect((await send("DELETE", `/webhooks/${id}`)).status).toBe(204);
    expect((await send("GET", `/webhooks/${id}`)).status).toBe(404);
  });

  it("refuses what it cannot take, each with a problem that says why", async () => {
    const problem = async (
      method: string,
      path: string,
      body: unknown,
      status: number,
      field?: string,
      headers: Record<string, string> = admin,
    ) => {
      const answer = await send(method, path, body, headers);
      expect(answer.status, `${method} ${path} ${JSON.stringify(body)}: ${answer.text}`).toBe(
        status,
      );
      expect(answer.type).toMatch(/^application\/problem\+json/);
      expect(answer.json.detail).toMatch(/\.$/);
      // The field, or a place in it (`events.0`).
      if (field)
        expect(
          answer.json.errors.map((e: { field: string }) => e.field.replace(/\.\d+$/, "")),
        ).toContain(field);
      return answer.json;
    };
    const url = `${hooks.url}/refusals`;
    for (const bad of [
      "ftp://example.com/x",
      "not a url",
      "",
      "https://user:pw@example.com/",
      "https://example.com/#frag",
      42,
      null,
    ])
      await problem("POST", "/webhooks", { url: bad, events: ["agent.created"] }, 400, "url");
    await problem("POST", "/webhooks", { events: ["agent.created"] }, 400, "url");
    for (const bad of [[], ["agent.exploded"], ["webhook.test"], "agent.created", null])
      await problem("POST", "/webhooks", { url, events: bad }, 400, "events");
    await problem("POST", "/webhooks", { url, events: ["agent.created"], extra: 1 }, 400);
    await problem("POST", "/webhooks", "{not json", 400);
    await problem("POST", "/webhooks", { url, events: ["agent.created"] }, 415, undefined, {
      ...admin,
      "content-type": "text/plain",
    });
    const { id } = await create("/refusals");
    await problem("PATCH", `/webhooks/${id}`, { url: "gopher://x" }, 400, "url");
    await problem("PATCH", `/webhooks/${id}`, { events: [] }, 400, "events");
    await problem("PATCH", `/webhooks/${id}`, { enabled: "yes" }, 400, "enabled");
    const unknown = "wh_0000000000000000";
    for (const [method, path] of [
      ["GET", `/webhooks/${unknown}`],
      ["PATCH", `/webhooks/${unknown}`],
      ["DELETE", `/webhooks/${unknown}`],
      ["POST", `/webhooks/${unknown}/rotate-secret`],
      ["POST", `/webhooks/${unknown}/test`],
      ["GET", `/webhooks/${unknown}/deliveries`],
      ["POST", `/webhooks/${unknown}/deliveries/1/retry`],
      ["GET", "/webhooks/not-an-id"],
    ] as const)
      expect(await problem(method, path, method === "PATCH" ? {} : undefined, 404)).toMatchObject({
        code: "webhook_not_found",
      });
    await problem("POST", `/webhooks/${id}/deliveries/99999/retry`, undefined, 404);
    await problem("POST", `/webhooks/${id}/deliveries/0/retry`, undefined, 400, "delivery_id");
    await problem("GET", `/webhooks/${id}/deliveries?limit=0`, undefined, 400, "limit");
    await problem("GET", `/webhooks/${id}/deliveries?status=lost`, undefined, 400, "status");
    await problem("GET", `/webhooks/${id}/deliveries?cursor=forged`, undefined, 400, "cursor");
    // Admin only, as every admin path: no key, a wrong key, an agent's key.
    for (const headers of [
      { "content-type": "application/json" },
      { ...admin, authorization: "Bearer wrong-key-0123456789abcdef" },
    ]) {
      await problem("GET", "/webhooks", undefined, 401, undefined, headers);
      await problem(
        "POST",
        "/webhooks",
        { url, events: ["agent.created"] },
        401,
        undefined,
        headers,
      );
      await problem("POST", `/webhooks/${id}/test`, undefined, 401, undefined, headers);
    }
  });

  it("signs every delivery; a rotated secret signs from then on, the old one no more", async () => {
    const { id, secret } = await create("/signed");
    const first = await test(id);
    expect(await until(() => hooks.to("/signed").length === 1)).toBe(true);
    const [received] = hooks.to("/signed") as [Received];
    expect(received.headers["content-type"]).toBe("application/json");
    expect(received.headers["webhook-id"]).toBe(first.webhook_id);
    expect(received.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(Number(received.headers["webhook-timestamp"])).toBeCloseTo(Date.now() / 1000, -2);
    const event = verified(secret, received);
    expect(event).toEqual({
      type: "webhook.test",
      timestamp: expect.any(String),
      data: (await send("GET", `/webhooks/${id}`)).json,
    });
    // Another secret does not verify it, nor does a body changed by one byte.
    const other = (await create("/other")).secret;
    expect(() => verified(other, received)).toThrow();
    expect(() =>
      verified(secret, { ...received, body: received.body.replace("test", "tesT") }),
    ).toThrow();

    const rotated = await send("POST", `/webhooks/${id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.json.secret).toMatch(/^whsec_/);
    expect(rotated.json.secret).not.toBe(secret);
    await test(id);
    expect(await until(() => hooks.to("/signed").length === 2)).toBe(true);
    const after = hooks.to("/signed")[1] as Received;
    expect(() => verified(secret, after)).toThrow();
    expect(verified(rotated.json.secret, after).type).toBe("webhook.test");
    expect((await send("GET", "/webhooks")).text).not.toContain(rotated.json.secret.slice(6, 30));
  });

  it("sends real events with the records the API shows: agent.created, run.succeeded", async () => {
    const { id, secret } = await create("/events", ["agent.created", "run.succeeded"]);
    const agent = await send("POST", "/agents", {
      aid: `hooked-${kind}`,
      autonomous_prompt: "Report the weather.",
    });
    expect(agent.status).toBe(201);
    const run = await send("POST", `/agents/hooked-${kind}/runs`);
    expect(run.status).toBe(202);
    expect(run.json.outcome).toBe("succeeded");
    expect(await until(() => hooks.to("/events").length === 2)).toBe(true);
    const events = hooks.to("/events").map((r) => verified(secret, r));
    expect(events.map((e) => e.type).sort()).toEqual(["agent.created", "run.succeeded"]);
    expect(events.find((e) => e.type === "agent.created")?.data).toEqual(agent.json);
    expect(events.find((e) => e.type === "run.succeeded")?.data).toEqual(run.json);
    // The delivery log shows each delivered once, with the answer's first bytes (recorded
    // once the answer has come: wait for the record, not for the receiver).
    const recorded = async () => (await deliveries(id)).every((d) => d.status !== "pending");
    expect(await until(recorded)).toBe(true);
    const log = await deliveries(id);
    expect(log.map((d) => [d.status, d.attempts.length, d.attempts[0]?.status_code])).toEqual([
      ["delivered", 1, 200],
      ["delivered", 1, 200],
    ]);
    expect(log[0]?.attempts[0]?.response_excerpt).toBe("ok");
  });

  it("retries a receiver that fails twice with the same webhook-id, and logs 3 attempts", async () => {
    const { id, secret } = await create("/flaky");
    const queued = await test(id);
    expect(await until(() => hooks.to("/flaky").length === 3)).toBe(true);
    const tries = hooks.to("/flaky");
    expect(new Set(tries.map((t) => t.headers["webhook-id"]))).toEqual(
      new Set([queued.webhook_id]),
    );
    for (const t of tries) expect(verified(secret, t).type).toBe("webhook.test");
    // Back-off: the first retry 0.2 s or more after the first attempt, the second 0.4 s after it.
    const [a, b, c] = tries.map((t) => t.at) as [number, number, number];
    expect(b - a).toBeGreaterThanOrEqual(190);
    expect(c - b).toBeGreaterThanOrEqual(390);
    expect(await until(async () => (await deliveries(id))[0]?.status === "delivered")).toBe(true);
    const [logged] = await deliveries(id);
    expect(logged?.attempts.map((x) => [x.status_code, x.response_excerpt])).toEqual([
      [503, "not yet"],
      [503, "not yet"],
      [200, "ok"],
    ]);
    expect(logged?.attempts[0]?.error).toBe("The endpoint answered HTTP 503.");
    // Sent again by hand: the same id a fourth time.
    const retried = await send("POST", `/webhooks/${id}/deliveries/${queued.id}/retry`);
    expect(retried.status).toBe(202);
    expect(retried.json).toMatchObject({ status: "pending", webhook_id: queued.webhook_id });
    expect(await until(() => hooks.to("/flaky").length === 4)).toBe(true);
    expect(hooks.to("/flaky")[3]?.headers["webhook-id"]).toBe(queued.webhook_id);
  });

  it("refuses private and loopback targets that WEBHOOK_ALLOWED_HOSTS does not list, and metadata ones listed or not", async () => {
    const port = internal.port;
    for (const url of [
      `http://127.0.0.1:${port}/`,
      `http://localhost:${port}/`,
      `http://LOCALHOST.:${port}/`,
      `http://api.localhost:${port}/`,
      `http://2130706433:${port}/`,
      `http://0x7f.1:${port}/`,
      `http://[::1]:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      "http://10.0.0.8/hook",
      "http://192.168.1.1/",
      "http://[fd00::1]/",
      "http://0.0.0.0/",
    ]) {
      const refused = await send("POST", "/webhooks", { url, events: ["agent.created"] });
      expect(refused.status, url).toBe(400);
      expect(refused.json.errors).toEqual([
        {
          field: "url",
          detail: expect.stringMatching(/non-public address, which WEBHOOK_ALLOWED_HOSTS/),
        },
      ]);
    }
    // The cloud metadata addresses, however spelled, whatever the setting lists.
    for (const url of [
      "http://169.254.169.254/latest/meta-data/",
      "http://[::ffff:169.254.169.254]/",
      "http://2852039166/",
      "http://[fd00:ec2::254]/",
    ]) {
      const refused = await send("POST", "/webhooks", { url, events: ["agent.created"] });
      expect(refused.status, url).toBe(400);
      expect(refused.json.errors).toEqual([
        {
          field: "url",
          detail: "is on a cloud metadata address, which is never allowed, listed or not",
        },
      ]);
    }
    // The listed one is taken (the other tests' endpoints), and so is a public one.
    expect(
      (
        await send("POST", "/webhooks", {
          url: "https://hooks.example.com/x",
          events: ["run.failed"],
        })
      ).status,
    ).toBe(201);
    expect(internal.received).toEqual([]);
  });

  it("checks the address a name resolves to when it sends: a name cannot point at loopback", async () => {
    // The machine's own name resolves to a loopback or private address (/etc/hosts).
    const name = hostname();
    const { address } = await lookup(name);
    expect(isNonPublicAddress(address), `${name} resolves to ${address}`).toBe(true);
    const made = await send("POST", "/webhooks", {
      url: `http://${name}:${internal.port}/steal`,
      events: ["agent.created"],
    });
    expect(made.status, made.text).toBe(201);
    const queued = await test(made.json.id);
    expect(await settled(made.json.id, queued.id)).toBe(true);
    const [logged] = await deliveries(made.json.id);
    expect(logged?.attempts[0]).toMatchObject({
      status_code: null,
      response_excerpt: null,
      error: expect.stringMatching(/resolves to a private, loopback .*; nothing was sent\.$/),
    });
    expect(internal.received).toEqual([]);
  });

  it("follows no redirect: a 3xx is a failed attempt", async () => {
    const { id } = await create("/redirect");
    const queued = await test(id);
    expect(await settled(id, queued.id)).toBe(true);
    const [logged] = await deliveries(id);
    expect(logged?.status).toBe("pending");
    expect(logged?.attempts[0]).toMatchObject({
      status_code: 302,
      error: expect.stringMatching(
        /^The endpoint answered HTTP 302, a redirect, which is not followed/,
      ),
    });
    expect(hooks.to("/landed")).toEqual([]);
    await send("DELETE", `/webhooks/${id}`);
  });

  it("reads no more than the first 200 bytes of an answer, and shows no more, huge or slow", async () => {
    const huge = await create("/huge");
    const teapot = await create("/teapot");
    const slow = await create("/slow");
    const trickle = await create("/trickle");
    const queued = await Promise.all([huge, teapot, slow, trickle].map((w) => test(w.id)));
    for (const [i, w] of [huge, teapot, slow, trickle].entries())
      expect(await settled(w.id, queued[i]?.id as number)).toBe(true);
    const first = async (id: string) => (await deliveries(id))[0];

    const big = await first(huge.id);
    expect(big?.status).toBe("delivered");
    expect(big?.attempts[0]?.response_excerpt).toBe("y".repeat(200));
    const bigText = (await send("GET", `/webhooks/${huge.id}/deliveries`)).text;
    expect(bigText).not.toContain("y".repeat(201));

    // A character cut at the 200th byte is left out, not mangled; nothing after it is kept.
    const refused = await first(teapot.id);
    expect(refused?.attempts[0]).toMatchObject({
      status_code: 418,
      response_excerpt: "é".repeat(100),
      error: "The endpoint answered HTTP 418.",
    });
    expect(JSON.stringify(await send("GET", `/webhooks/${teapot.id}/deliveries`))).not.toContain(
      "secret internals",
    );

    const timedOut = await first(slow.id);
    expect(timedOut?.status).toBe("pending");
    expect(timedOut?.attempts[0]).toMatchObject({
      status_code: null,
      error: `The endpoint did not answer within ${TIMEOUT_MS} ms.`,
    });
    expect(timedOut?.attempts[0]?.duration_ms).toBeLessThan(TIMEOUT_MS + 1000);

    // The status came in time: it decides, with what came of the body.
    const trickled = await first(trickle.id);
    expect(trickled?.status).toBe("delivered");
    expect(trickled?.attempts[0]).toMatchObject({
      status_code: 200,
      response_excerpt: "first bytes, ",
    });
    for (const w of [slow, trickle]) await send("DELETE", `/webhooks/${w.id}`);
  });
});
