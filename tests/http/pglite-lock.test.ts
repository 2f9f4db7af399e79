import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type DataDirLock, lockDataDir } from "@/db/pglite-lock";
import { type RunningServer, startServer, TEST_ADMIN_KEY } from "../helpers/server";

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };

async function agentIds(server: RunningServer): Promise<string[]> {
  const response = await fetch(`${server.url}/agents`, { headers: admin });
  expect(response.status).toBe(200);
  const { agents } = (await response.json()) as { agents: { aid: string }[] };
  return agents.map((a) => a.aid);
}

async function createAgent(server: RunningServer, aid: string): Promise<void> {
  const response = await fetch(`${server.url}/agents`, {
    method: "POST",
    headers: admin,
    body: JSON.stringify({ aid }),
  });
  expect(response.status).toBe(201);
}

/** Asks /health until `done` says so (or 60 s have passed). */
async function healthUntil(
  server: RunningServer,
  done: (status: number, body: Record<string, unknown>) => boolean,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const response = await fetch(`${server.url}/health`);
    const body = (await response.json()) as Record<string, unknown>;
    if (done(response.status, body)) return { status: response.status, body };
    if (Date.now() > deadline) throw new Error(`/health still says ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe("the embedded database is one process's", () => {
  const servers: RunningServer[] = [];
  const dirs: string[] = [];
  let heldLock: DataDirLock | undefined;
  afterEach(async () => {
    heldLock?.release();
    heldLock = undefined;
    for (const server of servers.splice(0).reverse()) await server.stop();
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it("a second `next start` on the same DATA_DIR refuses to start while the first serves on; after kill -9 of the first, a new start takes over and finds its data", {
    timeout: 180_000,
  }, async () => {
    const first = await startServer();
    servers.push(first);
    await createAgent(first, "written-first");

    const refused = await startServer({ DATA_DIR: first.dataDir }).then(
      () => undefined,
      (error: Error) => error.message,
    );
    expect(refused, "the second start must fail").toBeDefined();
    expect(refused).toMatch(/exited \(1\)/);
    expect(refused).toContain(`The embedded database in ${path.join(first.dataDir, "pglite")}`);
    expect(refused).toContain(`in use by another process (PID ${first.pid}`);
    expect(refused).toMatch(/stop the other process.*DATA_DIR.*DATABASE_URL/);

    // The first one never noticed: it serves, reads and writes as before.
    expect((await fetch(`${first.url}/health`)).status).toBe(200);
    await createAgent(first, "written-after-the-refusal");
    expect(await agentIds(first)).toEqual(["written-after-the-refusal", "written-first"]);

    // Killed with no chance to release its lock: the next start takes it over.
    await first.signal("SIGKILL");
    const next = await startServer({ DATA_DIR: first.dataDir });
    servers.push(next);
    expect(await healthUntil(next, (status) => status === 200)).toMatchObject({
      body: { status: "healthy", database: "ok", database_kind: "pglite" },
    });
    expect(await agentIds(next)).toEqual(["written-after-the-refusal", "written-first"]);
  });

  it("`npm run worker` without DATABASE_URL refuses at once, saying why", async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), "agent-worker-"));
    dirs.push(dataDir);
    const worker = spawn(
      process.execPath,
      [path.resolve("node_modules/tsx/dist/cli.mjs"), "scripts/worker.ts"],
      {
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          NODE_ENV: "production",
          DATA_DIR: dataDir,
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    worker.stdout.on("data", (chunk) => {
      output += chunk;
    });
    worker.stderr.on("data", (chunk) => {
      output += chunk;
    });
    const exited = new Promise<number | null>((resolve) => worker.once("exit", resolve));
    const code = await Promise.race([
      exited,
      new Promise<"still running">((resolve) => setTimeout(resolve, 20_000, "still running")),
    ]);
    if (code === "still running") {
      worker.kill("SIGTERM"); // tsx passes it on to the worker, which shuts down
      await exited;
    }
    expect(code, output).toBe(1);
    expect(output).toContain("Worker cannot start. DATABASE_URL is not set.");
    expect(output).toMatch(/the embedded database \(PGlite\) is one process's/);
    // It opened nothing: no database, no generated key.
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it("answers 503 while the embedded database cannot open (damaged, then locked by another process), and recovers without a restart", {
    timeout: 180_000,
  }, async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), "agent-damaged-"));
    dirs.push(dataDir);
    const pgliteDir = path.join(dataDir, "pglite");
    mkdirSync(pgliteDir);
    writeFileSync(path.join(pgliteDir, "PG_VERSION"), "not a version\n");

    const server = await startServer({ DATA_DIR: dataDir });
    servers.push(server);
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({
      status: "unhealthy",
      database: "unreachable",
      database_kind: "pglite",
      reason: "The embedded database could not be opened; the server log says why.",
    });
    const agents = await fetch(`${server.url}/agents`, { headers: admin });
    expect(agents.status).toBe(503);
    expect(agents.headers.get("content-type")).toBe("application/problem+json");
    expect(agents.headers.get("retry-after")).toBe("5");
    expect(await agents.json()).toMatchObject({
      code: "database_unavailable",
      detail: "The embedded database could not be opened; the server log says why.",
    });
    expect(server.output()).toContain(`The embedded database in ${pgliteDir} could not be opened`);

    // The damage is cleared, but another live process (this test) now holds the directory.
    await rm(pgliteDir, { recursive: true });
    mkdirSync(pgliteDir);
    heldLock = lockDataDir(pgliteDir);
    const locked = await healthUntil(server, (_, body) => body.database === "locked");
    expect(locked).toMatchObject({
      status: 503,
      body: { status: "unhealthy", reason: expect.stringContaining("in use by another process") },
    });
    const refused = await fetch(`${server.url}/agents`, { headers: admin });
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({
      code: "database_unavailable",
      detail: expect.stringContaining("in use by another process"),
    });

    // Released: the server opens it on a later request, with no restart.
    heldLock.release();
    heldLock = undefined;
    expect(await healthUntil(server, (status) => status === 200)).toMatchObject({
      body: { status: "healthy", database: "ok" },
    });
    expect(await agentIds(server)).toEqual([]);
  });
});
