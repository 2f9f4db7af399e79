import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * A PostgreSQL server of the test's own, made with initdb on a port of its own, that the test
 * may stop and start at will: never the machine's shared server. PostgreSQL refuses to run as
 * root, so when the tests run as root it runs as the `postgres` user.
 */

const BIN_DIRS = [
  process.env.PG_BIN_DIR,
  "/usr/lib/postgresql/15/bin",
  "/usr/local/bin",
  "/usr/bin",
];

function pgBinary(name: string): string {
  for (const dir of BIN_DIRS) {
    if (dir && existsSync(path.join(dir, name))) return path.join(dir, name);
  }
  throw new Error(`${name} not found; set PG_BIN_DIR to PostgreSQL's bin directory`);
}

export const clusterAvailable = (() => {
  try {
    pgBinary("initdb");
    pgBinary("pg_ctl");
    return true;
  } catch {
    return false;
  }
})();

export type ThrowawayCluster = {
  url: string;
  port: number;
  stop(): void;
  start(): void;
  destroy(): void;
};

/** `settings` are extra server settings, as `name=value`. */
export function createThrowawayCluster(port: number, settings: string[] = []): ThrowawayCluster {
  const dir = mkdtempSync(path.join(tmpdir(), "pg-fault-"));
  chmodSync(dir, 0o777);
  const dataDir = path.join(dir, "data");
  const asRoot = process.getuid?.() === 0;
  const run = (binary: string, args: string[]) => {
    const [command, commandArgs] = asRoot
      ? ["runuser", ["-u", "postgres", "--", pgBinary(binary), ...args]]
      : [pgBinary(binary), args];
    execFileSync(command as string, commandArgs as string[], { stdio: "pipe", timeout: 60_000 });
  };
  run("initdb", ["-D", dataDir, "-A", "trust", "-U", "postgres", "--no-sync"]);
  const options = [
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
    ...settings.map((setting) => `-c ${setting}`),
  ].join(" ");
  const cluster: ThrowawayCluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start: () =>
      run("pg_ctl", ["start", "-w", "-D", dataDir, "-l", path.join(dir, "log"), "-o", options]),
    // `fast`: connections are cut at once, as when a server dies or fails over.
    stop: () => run("pg_ctl", ["stop", "-w", "-m", "fast", "-D", dataDir]),
    destroy: () => {
      try {
        cluster.stop();
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  cluster.start();
  return cluster;
}
