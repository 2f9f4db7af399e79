import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { accepts, freePort } from "./server";

/** PgBouncer from Debian's package (`.ci/run` installs it). */
export const PGBOUNCER = "/usr/sbin/pgbouncer";
export const pgbouncerInstalled = existsSync(PGBOUNCER);

export type RunningPgBouncer = {
  /** `databaseUrl` with PgBouncer's address in place of PostgreSQL's. */
  url: string;
  output(): string;
  stop(): Promise<void>;
};

/**
 * PgBouncer in transaction pooling mode in front of the PostgreSQL server of `databaseUrl`, with
 * `serverConnections` server connections per database: far fewer than its clients hold.
 */
export async function startPgBouncer(
  databaseUrl: string,
  { serverConnections = 4 }: { serverConnections?: number } = {},
): Promise<RunningPgBouncer> {
  const target = new URL(databaseUrl);
  const port = await freePort();
  // PgBouncer will not run as root: it drops to the `postgres` user, who must read the folder.
  const dir = await mkdtemp(path.join(tmpdir(), "pgbouncer-"));
  await chmod(dir, 0o777);
  const config = path.join(dir, "pgbouncer.ini");
  await writeFile(
    config,
    [
      "[databases]",
      `* = host=${target.hostname} port=${target.port || 5432} user=${target.username || "postgres"}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      // The test server trusts its clients; `any` logs in as the user above, whatever is sent.
      "auth_type = any",
      "pool_mode = transaction",
      `default_pool_size = ${serverConnections}`,
      "max_client_conn = 1000",
      "ignore_startup_parameters = extra_float_digits",
      `pidfile = ${path.join(dir, "pgbouncer.pid")}`,
    ].join("\n"),
  );
  await chmod(config, 0o644);
  const asRoot = process.getuid?.() === 0;
  const child: ChildProcess = spawn(PGBOUNCER, [...(asRoot ? ["-u", "postgres"] : []), config], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null) throw new Error(`PgBouncer exited:\n${output}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`PgBouncer did not listen:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const url = new URL(databaseUrl);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  return {
    url: url.toString(),
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill("SIGINT");
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
