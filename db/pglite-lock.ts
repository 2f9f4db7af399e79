import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";
import path from "node:path";

/**
 * One process at a time on a PGlite data directory: a second one would overwrite the first one's
 * writes and leave a directory that no longer opens. Not an age-based lockfile (kill -9 would block
 * restarts) nor flock (no Node API without a native addon): a record of the holder (PID, process
 * start time, boot id), dead once its process is gone, reused or from an earlier boot. Each taker
 * creates the next generation's file with O_EXCL and holds the lock only if nothing above it
 * exists; the highest generation is never removed (release writes a `released` record above it),
 * so g + 1 can be made only after g was found dead or released, and takeovers do not race. Only
 * this machine's PID namespace is seen (and without /proc, PID reuse is not): instances sharing a
 * volume across containers or machines must use PostgreSQL.
 */

/** The `code` of the error thrown when another process (or this one, twice) holds the lock. */
export const DATA_DIR_LOCKED = "DATA_DIR_LOCKED";

/** An unreadable record younger than this is one being written right now. */
const UNREADABLE_GRACE_MS = 5000;
const MAX_ROUNDS = 100;

type HolderRecord = {
  pid: number;
  /** Start time in clock ticks since boot (/proc/<pid>/stat field 22); null without /proc. */
  start: string | null;
  boot: string | null;
  host: string;
  since: string;
};
type LockRecord =
  | ({ state: "held" } & HolderRecord)
  | { state: "released"; pid: number; at: string };

export type LockHolder =
  | { kind: "process"; pid: number; host: string; since: string }
  | { kind: "this-process"; pid: number }
  | { kind: "starting" };

export class DataDirLockedError extends Error {
  override name = "DataDirLockedError";
  readonly code = DATA_DIR_LOCKED;
  constructor(
    readonly dataDir: string,
    readonly lockDir: string,
    readonly holder: LockHolder,
  ) {
    super(lockedMessage(dataDir, lockDir, holder));
  }
}

function lockedMessage(dataDir: string, lockDir: string, holder: LockHolder): string {
  const advice =
    "PGlite is one process's database: stop the other process, or give this one a different " +
    "DATA_DIR, or set DATABASE_URL to use PostgreSQL, which any number of processes can share.";
  switch (holder.kind) {
    case "this-process":
      return (
        `The embedded database in ${dataDir} is already open in this process (PID ${holder.pid}); ` +
        "opening it a second time is a bug, refused so that the two copies cannot damage it."
      );
    case "starting":
      return `The embedded database in ${dataDir} is being opened by another process right now. ${advice}`;
    case "process": {
      const where = holder.host === hostname() ? "" : ` on host ${holder.host}`;
      return (
        `The embedded database in ${dataDir} is in use by another process (PID ${holder.pid}` +
        `${where}, since ${holder.since}). ${advice} (The lock is in ${lockDir}; it is freed ` +
        "when that process stops, even if it is killed.)"
      );
    }
  }
}

export type DataDirLock = {
  readonly lockDir: string;
  release(): void;
};

export function lockDirOf(dataDir: string): string {
  return `${realpathSync(dataDir)}.lock`;
}

/**
 * Takes the lock on `dataDir` for this process, or throws a {@link DataDirLockedError} naming the
 * holder. Synchronous, so nothing else in this process runs between the checks.
 */
export function lockDataDir(
  dataDir: string,
  hooks: { beforeCreate?: () => void } = {},
): DataDirLock {
  const lockDir = lockDirOf(dataDir);
  mkdirSync(lockDir, { recursive: true });
  const me = thisProcess();
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const top = highestGeneration(lockDir);
    if (top !== undefined) {
      const record = readRecord(lockDir, top);
      if (record === "gone") continue; // removed as we read: look again
      if (record === "being-written") {
        throw new DataDirLockedError(dataDir, lockDir, { kind: "starting" });
      }
      if (record !== "dead" && record.state === "held") {
        if (isThisProcess(record, me)) {
          throw new DataDirLockedError(dataDir, lockDir, { kind: "this-process", pid: me.pid });
        }
        if (isAlive(record, me)) {
          const { pid, host, since } = record;
          throw new DataDirLockedError(dataDir, lockDir, { kind: "process", pid, host, since });
        }
      }
    }
    // Free, released, or its holder is dead: try to become the next generation.
    const generation = (top ?? 0) + 1;
    const record: LockRecord = { state: "held", ...me, host: hostname(), since: isoNow() };
    hooks.beforeCreate?.();
    if (!createExclusively(lockDir, generation, record)) continue; // another starter made it first
    if (highestGeneration(lockDir) !== generation) {
      // A later generation exists: someone else won meanwhile. Ours is garbage; look again.
      removeQuietly(lockDir, generation);
      continue;
    }
    removeBelow(lockDir, generation);
    return heldLock(lockDir, generation);
  }
  throw new Error(`Could not take the lock ${lockDir}: it changed hands ${MAX_ROUNDS} times.`);
}

function heldLock(lockDir: string, generation: number): DataDirLock {
  let released = false;
  return {
    lockDir,
    release() {
      if (released) return;
      released = true;
      try {
        // Only if it is still ours: never write over a lock that someone else took.
        if (highestGeneration(lockDir) !== generation) return;
        const record: LockRecord = { state: "released", pid: process.pid, at: isoNow() };
        if (createExclusively(lockDir, generation + 1, record))
          removeBelow(lockDir, generation + 1);
      } catch (error) {
        // The whole directory removed (a test cleaning up): nothing left to release.
        if (errorCode(error) !== "ENOENT") throw error;
      }
    },
  };
}

type Me = { pid: number; start: string | null; boot: string | null };

function thisProcess(): Me {
  return { pid: process.pid, start: procStat(process.pid)?.start ?? null, boot: bootId() };
}

function isThisProcess(record: HolderRecord, me: Me): boolean {
  return record.pid === me.pid && record.start === me.start && record.boot === me.boot;
}

/** Whether the process that wrote the record still runs (when unsure: yes). */
function isAlive(record: HolderRecord, me: Me): boolean {
  if (record.boot && me.boot && record.boot !== me.boot) return false; // written before a reboot
  try {
    process.kill(record.pid, 0);
  } catch (error) {
    if (errorCode(error) === "ESRCH") return false;
    // EPERM: it exists, under another user.
  }
  const stat = procStat(record.pid);
  if (!stat) return true; // no /proc to ask: the PID exists, so take it for the holder
  if (stat.state === "Z" || stat.state === "X") return false; // killed, not yet reaped
  return record.start === null || stat.start === record.start; // else the PID was reused
}

/** State (field 3) and start time (field 22) from /proc/<pid>/stat; undefined without /proc. */
function procStat(pid: number): { state: string; start: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) is in parentheses and may hold spaces and parentheses itself.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const state = fields[0];
    const start = fields[19];
    return state && start ? { state, start } : undefined;
  } catch {
    return undefined;
  }
}

function bootId(): string | null {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || null;
  } catch {
    return null;
  }
}

function generations(lockDir: string): number[] {
  return readdirSync(lockDir)
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

function highestGeneration(lockDir: string): number | undefined {
  const all = generations(lockDir);
  return all.length ? Math.max(...all) : undefined;
}

function readRecord(
  lockDir: string,
  generation: number,
): LockRecord | "gone" | "being-written" | "dead" {
  const file = path.join(lockDir, String(generation));
  let text: string;
  let ageMs: number;
  try {
    ageMs = Date.now() - statSync(file).mtimeMs;
    text = readFileSync(file, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return "gone";
    throw error;
  }
  const record = parseRecord(text);
  if (record) return record;
  return ageMs < UNREADABLE_GRACE_MS ? "being-written" : "dead";
}

function parseRecord(text: string): LockRecord | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockRecord> | null;
    if (value?.state === "released") return value as LockRecord;
    if (value?.state === "held" && typeof value.pid === "number") return value as LockRecord;
  } catch {
    // unreadable: see the caller
  }
  return undefined;
}

function createExclusively(lockDir: string, generation: number, record: LockRecord): boolean {
  let fd: number;
  try {
    fd = openSync(path.join(lockDir, String(generation)), "wx", 0o644);
  } catch (error) {
    if (errorCode(error) === "EEXIST") return false;
    throw error;
  }
  try {
    writeSync(fd, `${JSON.stringify(record)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return true;
}

function removeBelow(lockDir: string, generation: number): void {
  for (const other of generations(lockDir)) {
    if (other < generation) removeQuietly(lockDir, other);
  }
}

function removeQuietly(lockDir: string, generation: number): void {
  try {
    unlinkSync(path.join(lockDir, String(generation)));
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw error;
  }
}

function errorCode(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

function isoNow(): string {
  return new Date().toISOString();
}
