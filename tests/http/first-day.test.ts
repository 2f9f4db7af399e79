import { connect, createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createThrowawayPostgres, TEST_DATABASE_URL } from "../helpers/database-kinds";
import { type RunningServer, startServer, TEST_ADMIN_KEY } from "../helpers/server";

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };

/**
 * What a new operator meets on the first day, over HTTP on the built service: a refused
 * loopback target that says which setting allows it and that a restart is needed, echo replies
 * that say they are echo's, and /health that answers while the service is still starting.
 */
describe("the first day, on PGlite", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ MCP_ALLOWED_HOSTS: "mcp.example.com", SCHEDULER: "off" });
  });
  afterAll(() => server?.stop());

  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify(body),
    });
    return { status: response.status, json: await response.json() };
  };

  it("refuses a loopback webhook receiver naming WEBHOOK_ALLOWED_HOSTS, the host to add and the restart", async () => {
    const refused = await post("/webhooks", {
      url: "http://127.0.0.1:9999/hooks",
      events: ["agent.created"],
    });
    expect(refused.status).toBe(400);
    const [error] = refused.json.errors;
    expect(error.field).toBe("url");
    expect(error.detail).toContain("WEBHOOK_ALLOWED_HOSTS");
    expect(error.detail).toContain("add '127.0.0.1:9999' to that setting");
    expect(error.detail).toContain("restart the service");
    expect(refused.json.detail).toContain(error.detail);
    // localhost is judged as loopback too, and says the same.
    const named = await post("/webhooks", { url: "http://localhost/h", events: ["run.failed"] });
    expect(named.json.errors[0].detail).toContain("add 'localhost' to that setting");
  });

  it("refuses a loopback MCP server naming MCP_ALLOWED_HOSTS, the host to add and the restart", async () => {
    const refused = await post("/agents", {
      aid: "first-day-tools",
      mcp_servers: [{ name: "calc", url: "http://127.0.0.1:8000/mcp" }],
    });
    expect(refused.status).toBe(400);
    expect(refused.json.errors).toEqual([
      {
        field: "mcp_servers.0.url",
        detail:
          "is on a private, loopback or other non-public address, which MCP_ALLOWED_HOSTS does not list; to allow it, add '127.0.0.1:8000' to that setting (hosts separated by commas) and restart the service",
      },
    ]);
  });

  it("says echo replies are echo's, whichever model the agent names", async () => {
    for (const agent of [{ aid: "first-day-echo" }, { aid: "first-day-named", model: "gpt-4o" }])
      expect((await post("/agents", agent)).status).toBe(201);
    for (const aid of ["first-day-echo", "first-day-named"]) {
      const reply = await fetch(`${server.url}/${aid}/chat?q=hello`, {
        headers: { ...admin, accept: "application/json" },
      });
      expect(reply.status).toBe(200);
      expect(await reply.json()).toMatchObject({ reply: "echo: hello", model: "echo" });
    }
    // The request log's entry names it too (written as the chat ends, maybe a moment later).
    const logged = async () =>
      (
        await (await fetch(`${server.url}/requests?aid=first-day-named`, { headers: admin })).json()
      ).requests.map((entry: { model: string | null }) => entry.model);
    await expect.poll(logged).toEqual(["echo"]);
  });
});

/**
 * A PostgreSQL server that accepts connections at once and answers them only once released:
 * a database that is slow to come up, holding the service's start for as long as a test likes.
 */
async function heldPostgres(target: string) {
  const { hostname, port } = new URL(target);
  const waiting: Socket[] = [];
  let released = false;
  const pass = (client: Socket) => {
    const upstream = connect(Number(port || 5432), hostname);
    client.pipe(upstream).pipe(client);
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
    client.resume();
  };
  const proxy: Server = createServer((client) => {
    client.pause();
    if (released) pass(client);
    else waiting.push(client);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const address = proxy.address();
  if (!address || typeof address === "string") throw new Error("no port");
  const url = new URL(target);
  url.host = `127.0.0.1:${address.port}`;
  return {
    url: url.toString(),
    release() {
      released = true;
      for (const client of waiting.splice(0)) pass(client);
    },
    close: () => new Promise<void>((resolve) => proxy.close(() => resolve())),
  };
}

describe.runIf(TEST_DATABASE_URL)("/health while the service starts", () => {
  it("answers 503 at once while the database is not up yet, /health/live 200, then 200 once started", async () => {
    const database = await createThrowawayPostgres();
    const held = await heldPostgres(database.url);
    let server: RunningServer | undefined;
    try {
      server = await startServer(
        { DATABASE_URL: held.url, WEB_CONCURRENCY: "1", SCHEDULER: "off" },
        {},
        { untilStarted: false },
      );
      const within = { signal: AbortSignal.timeout(2000) };
      const started = performance.now();
      const health = await fetch(`${server.url}/health`, within);
      expect(performance.now() - started).toBeLessThan(1000);
      expect(health.status).toBe(503);
      expect(health.headers.get("retry-after")).toBe("5");
      expect(await health.json()).toMatchObject({
        status: "unhealthy",
        database: "starting",
        reason: expect.stringContaining("is starting"),
        database_kind: "postgres",
        provider: "echo",
      });
      const ready = await fetch(`${server.url}/health/ready`, within);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({
        status: "not_ready",
        reason: expect.stringContaining("is starting"),
      });
      const live = await fetch(`${server.url}/health/live`, within);
      expect(live.status).toBe(200);
      expect(await live.json()).toEqual({ status: "live" });
      // Still held: still starting, and still at once.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect((await fetch(`${server.url}/health`, within)).status).toBe(503);

      held.release();
      const running = server;
      await expect
        .poll(async () => (await fetch(`${running.url}/health`)).status, { timeout: 30_000 })
        .toBe(200);
      expect((await fetch(`${server.url}/health/ready`)).status).toBe(200);
    } finally {
      held.release();
      await server?.stop();
      await held.close();
      await database.drop();
    }
  });
});
