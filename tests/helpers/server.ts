import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { TEST_ADMIN_KEY } from "./admin-key";
import { copyPgliteTemplate } from "./pglite-template";

/**
 * The built service, started as `npm start` starts it (server/instance/start.mjs, which checks
 * the Node.js version and loads the server entry, main.ts), as a real process on a free
 * loopback port.
 */
export type RunningServer = {
  url: string;
  dataDir: string;
  /** The started process: the only one, or the primary of WEB_CONCURRENCY web workers. */
  pid: number;
  /** Sends a signal; resolves with the exit code once the process has exited. */
  signal(signal: NodeJS.Signals): Promise<number | null>;
  /** Everything the process printed so far. */
  output(): string;
  stop(): Promise<void>;
};

export { TEST_ADMIN_KEY } from "./admin-key";

/** The V8 flags `npm start` runs the service with (package.json; README, "Memory"). */
export const SERVER_NODE_OPTIONS = "--max-old-space-size=1024 --max-semi-space-size=16";

/** A request with the admin key and a JSON body, if any; its status and its JSON, if any. */
export async function sendAsAdmin(
  server: { url: string },
  method: string,
  path: string,
  body?: unknown,
  // biome-ignore lint/suspicious/noExplicitAny: the tests read whichever fields their operation answers with
): Promise<{ status: number; json: any }> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

/** Whether something accepts a connection on the loopback `port` now. */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * A free loopback port for a process a test starts, from below the kernel's ephemeral range: a
 * port from inside it is free only until an outgoing connection of any process is given it, and
 * with thousands of connections a minute (the fuzz tests) one was, between picking the port and
 * the started server binding it (EADDRINUSE). Below the range, only another listener can take it.
 */
export async function freePort(): Promise<number> {
  const high = ephemeralStart() - 1;
  const low = Math.min(10_000, high - 1000);
  for (let tries = 0; tries < 200; tries++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port from ${low} to ${high}`);
}

function ephemeralStart(): number {
  try {
    const start = Number(
      readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").split(/\s+/)[0],
    );
    return Number.isInteger(start) && start > 4096 ? start : 32_768;
  } catch {
    return 32_768;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

export async function startServer(
  env: Record<string, string | undefined> = {},
  /** A port and data directory to reuse: a server started again where a stopped one was. */
  at: { port?: number; dataDir?: string } = {},
  /**
   * Wait until the service has started (its /health no longer says `starting`), or return at
   * its first answer, which may be that one.
   */
  { untilStarted = true }: { untilStarted?: boolean } = {},
): Promise<RunningServer> {
  const port = at.port ?? (await freePort());
  const dataDir = at.dataDir ?? (await mkdtemp(path.join(tmpdir(), "agent-service-")));
  // A new embedded database starts as a copy of the migrated template, not as a new cluster
  // (pglite-template.ts); a test that gives its own DATA_DIR gets what it gave.
  if (at.dataDir === undefined && env.DATABASE_URL === undefined && env.DATA_DIR === undefined)
    await copyPgliteTemplate(path.join(dataDir, "pglite"));
  let output = "";
  const childEnv: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NEXT_TELEMETRY_DISABLED: "1",
    // As `npm start` does (see README, "Memory").
    NODE_ENV: "production",
    NODE_OPTIONS: SERVER_NODE_OPTIONS,
    NODE_COMPILE_CACHE: path.resolve(".next", "cache", "node"),
    HOST: "127.0.0.1",
    SHUTDOWN_GRACE_MS: "5000",
    // Tests send many chats from one address; those about rate limits set them per agent.
    CHAT_RATE_LIMIT_RPM: "unlimited",
    NONCE_RATE_LIMIT_RPM: "unlimited",
    // On PostgreSQL, two web workers whatever the machine's cores (npm start's default
    // here): every HTTP test on PostgreSQL also tests the cluster. Tests of one process's
    // own caps set WEB_CONCURRENCY=1. Each worker gets half the default pool, so that a
    // test server holds at most the 20 connections one process did: tests that run two
    // instances stay well under the test server's max_connections (100).
    ...(env.DATABASE_URL && env.WEB_CONCURRENCY === undefined
      ? { WEB_CONCURRENCY: "2", DATABASE_POOL_SIZE: "10" }
      : {}),
    DATA_DIR: dataDir,
    ADMIN_API_KEY: TEST_ADMIN_KEY,
    PORT: String(port),
    ...env,
  };
  const child: ChildProcess = spawn(
    process.execPath,
    [path.resolve("server", "instance", "start.mjs")],
    { env: childEnv as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });

  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => resolve(code)),
  );
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    return exited;
  };
  const stop = async () => {
    await signal("SIGTERM");
    await rm(dataDir, { recursive: true, force: true });
  };

  // Each web worker answers /health itself while it starts, and the kernel spreads connections
  // over the workers by their addresses (SO_REUSEPORT): an answer says little of the others.
  // Every worker logs when its start has ended, well or not (server/frame/start-up.ts); then
  // /health must say so twice in a row.
  const workers = Math.max(1, Number(childEnv.WEB_CONCURRENCY) || 1);
  const startEnded = /"msg":"Agent Service: (database ready|start-up failed)/;
  const workersStarted = () =>
    workers === 1 ||
    new Set(
      output
        .split("\n")
        .filter((line) => startEnded.test(line))
        .map((line) => (JSON.parse(line) as { worker?: number }).worker),
    ).size >= workers;
  let started = 0;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      await rm(dataDir, { recursive: true, force: true });
      throw new Error(`The server exited (${child.exitCode}):\n${output}`);
    }
    // What /health says of the database (undefined: no answer yet).
    const database = await fetch(`${url}/health`, { headers: { connection: "close" } }).then(
      async (health) =>
        ((await health.json().catch(() => ({}))) as { database?: string }).database ?? "",
      () => undefined,
    );
    if (database !== undefined && !untilStarted) break;
    started = database !== undefined && database !== "starting" ? started + 1 : 0;
    if (started >= 2 && workersStarted()) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(
        `The server did not ${database === undefined ? "answer" : "start"} within 60 s:\n${output}`,
      );
    }
    if (started === 0) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, dataDir, pid: child.pid as number, output: () => output, signal, stop };
}
