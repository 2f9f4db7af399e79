import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EmbeddedDatabaseError } from "@/db/client";
import { DataDirLockedError, lockDataDir, lockDirOf } from "@/db/pglite-lock";
import { problemFromError } from "@/server/frame/errors";

/** A process running tests/helpers/lock-contender.ts on `dataDir`. */
type Contender = {
  child: ChildProcess;
  /** Resolves with `won` or `refused {…}` once it has tried. */
  outcome: Promise<string>;
  ready: Promise<void>;
  exited: Promise<number | null>;
};

function contender(dataDir: string): Contender {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", path.resolve("tests/helpers/lock-contender.ts"), dataDir],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  let output = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const line = (match: (line: string) => boolean) =>
    new Promise<string>((resolve, reject) => {
      const look = () => {
        const found = output.split("\n").find(match);
        if (found !== undefined) resolve(found);
      };
      child.stdout?.on("data", (chunk) => {
        output += chunk;
        look();
      });
      exited.then(() => reject(new Error(`contender exited; it said: ${output}`)));
      look();
    });
  return {
    child,
    ready: line((l) => l === "ready").then(() => undefined),
    outcome: line((l) => l === "won" || l.startsWith("refused ")),
    exited,
  };
}

/** Starts `count` contenders, lets them all try at the same moment, and returns their outcomes. */
async function race(
  dataDir: string,
  count: number,
): Promise<{ all: Contender[]; won: Contender[] }> {
  const all = Array.from({ length: count }, () => contender(dataDir));
  await Promise.all(all.map((c) => c.ready));
  const at = Date.now() + 300;
  for (const c of all) c.child.stdin?.write(`go ${at}\n`);
  const outcomes = await Promise.all(all.map((c) => c.outcome));
  const won = all.filter((_, i) => outcomes[i] === "won");
  for (const [i, outcome] of outcomes.entries()) {
    if (outcome !== "won") {
      expect(JSON.parse(outcome.slice("refused ".length))).toMatchObject({
        code: "DATA_DIR_LOCKED",
      });
      await all[i]?.exited;
    }
  }
  return { all, won };
}

async function kill9(c: Contender): Promise<void> {
  c.child.kill("SIGKILL");
  await c.exited;
}

describe("the data directory lock", () => {
  let dataDir: string;
  const running: Contender[] = [];
  beforeEach(async () => {
    dataDir = path.join(await mkdtemp(path.join(tmpdir(), "pglite-lock-")), "pglite");
    mkdirSync(dataDir);
  });
  afterEach(async () => {
    for (const c of running.splice(0)) await kill9(c);
    await rm(path.dirname(dataDir), { recursive: true, force: true });
  });

  it("is one holder's at a time in this process: a second take is refused as a bug, a release frees it", () => {
    const lock = lockDataDir(dataDir);
    expect(() => lockDataDir(dataDir)).toThrow(/already open in this process/);
    try {
      lockDataDir(dataDir);
    } catch (error) {
      expect(error).toBeInstanceOf(DataDirLockedError);
      expect((error as DataDirLockedError).holder).toEqual({
        kind: "this-process",
        pid: process.pid,
      });
    }
    lock.release();
    lock.release(); // idempotent
    const again = lockDataDir(dataDir);
    again.release();
    // Nothing piles up: one file, the last release's.
    expect(readdirSync(lockDirOf(dataDir))).toHaveLength(1);
  });

  it("refuses while another live process holds it, naming the directory and what to do; takes it over once that process is killed (-9)", async () => {
    const holder = contender(dataDir);
    running.push(holder);
    await holder.ready;
    holder.child.stdin?.write("go 0\n");
    expect(await holder.outcome).toBe("won");

    let refusal: unknown;
    try {
      lockDataDir(dataDir);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(DataDirLockedError);
    const message = (refusal as Error).message;
    expect(message).toContain(dataDir);
    expect(message).toContain(`PID ${holder.child.pid}`);
    expect(message).toMatch(/stop the other process.*DATA_DIR.*DATABASE_URL/);

    running.splice(0);
    await kill9(holder);
    const lock = lockDataDir(dataDir);
    lock.release();
  });

  it("is freed by a holder that stops normally, and then taken by the next one", async () => {
    const first = contender(dataDir);
    await first.ready;
    first.child.stdin?.write("go 0\n");
    expect(await first.outcome).toBe("won");
    first.child.stdin?.end(); // releases and exits
    expect(await first.exited).toBe(0);
    lockDataDir(dataDir).release();
  });

  it("takes over a record whose PID now belongs to another process (PID reuse) or that predates a reboot", async () => {
    const lockDir = lockDirOf(dataDir);
    mkdirSync(lockDir, { recursive: true });
    const bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    // A live process (this test's parent), recorded with a start time it does not have.
    const reused = { state: "held", pid: process.ppid, start: "1", boot: bootId };
    writeFileSync(path.join(lockDir, "7"), JSON.stringify({ ...reused, host: "h", since: "x" }));
    const lock = lockDataDir(dataDir);
    lock.release();

    // The same live process with its true start time, but written before the last boot.
    const stat = readFileSync(`/proc/${process.ppid}/stat`, "utf8");
    const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    const alive = { state: "held", pid: process.ppid, start, boot: bootId, host: "h", since: "x" };
    writeFileSync(path.join(lockDir, "100"), JSON.stringify(alive));
    expect(() => lockDataDir(dataDir)).toThrow(DataDirLockedError);
    writeFileSync(path.join(lockDir, "101"), JSON.stringify({ ...alive, boot: "another-boot" }));
    lockDataDir(dataDir).release();
  });

  it("does not take over a dead holder's lock that another process took over since it looked", () => {
    const lockDir = lockDirOf(dataDir);
    mkdirSync(lockDir, { recursive: true });
    const dead = { state: "held", pid: 999_999_999, start: "1", boot: null, host: "h", since: "x" };
    writeFileSync(path.join(lockDir, "5"), JSON.stringify(dead));
    const stat = readFileSync(`/proc/${process.ppid}/stat`, "utf8");
    const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    const live = { state: "held", pid: process.ppid, start, boot: null, host: "h", since: "x" };

    // Between our read of the dead holder and our move, another process takes it over (6).
    let refusal: unknown;
    try {
      lockDataDir(dataDir, {
        beforeCreate: () => writeFileSync(path.join(lockDir, "6"), JSON.stringify(live)),
      });
    } catch (error) {
      refusal = error;
    }
    expect((refusal as DataDirLockedError).holder).toMatchObject({ pid: process.ppid });

    // Or it took it over, released it and another took it again (9), removing the older ones:
    // the generation we then create (8) is below the holder's, so we lose.
    writeFileSync(path.join(lockDir, "7"), JSON.stringify({ ...dead }));
    refusal = undefined;
    try {
      lockDataDir(dataDir, {
        beforeCreate: () => {
          writeFileSync(path.join(lockDir, "9"), JSON.stringify(live));
          for (const name of ["5", "6", "7"]) rmSync(path.join(lockDir, name), { force: true });
        },
      });
    } catch (error) {
      refusal = error;
    }
    expect((refusal as DataDirLockedError).holder).toMatchObject({ pid: process.ppid });
    expect(readdirSync(lockDir).sort()).toEqual(["9"]);
  });

  it("reads a record being written as held, and one unreadable for long as a crash's leftover", () => {
    const lockDir = lockDirOf(dataDir);
    mkdirSync(lockDir, { recursive: true });
    const file = path.join(lockDir, "3");
    writeFileSync(file, "");
    expect(() => lockDataDir(dataDir)).toThrow(/being opened by another process right now/);
    const old = new Date(Date.now() - 60_000);
    utimesSync(file, old, old);
    lockDataDir(dataDir).release();
  });

  it("has exactly one winner among processes that try at the same moment: free, held by a killed process, released", {
    timeout: 120_000,
  }, async () => {
    // The state each round starts from: the winner of the round before is killed or releases.
    const rounds = ["free", "held by a killed process", "released", "held by a killed process"];
    for (const [i, round] of rounds.entries()) {
      const { all, won } = await race(dataDir, 8);
      expect(won, `winners when ${round}`).toHaveLength(1);
      const winner = won[0] as Contender;
      if (rounds[i + 1] === "released") {
        winner.child.stdin?.end();
        expect(await winner.exited).toBe(0);
      } else {
        await kill9(winner);
      }
      const stillRunning = all.filter((c) => c.child.exitCode === null && !c.child.signalCode);
      expect(stillRunning).toEqual([]);
    }
  });
});

describe("a database that cannot be opened", () => {
  it("is a 503 database_unavailable with a sentence that says why, for a lock as for PGlite failing", () => {
    const locked = new DataDirLockedError("/srv/data/pglite", "/srv/data/pglite.lock", {
      kind: "process",
      pid: 42,
      host: "here",
      since: "2026-01-01T00:00:00.000Z",
    });
    expect(problemFromError(locked)).toMatchObject({
      status: 503,
      code: "database_unavailable",
      detail: expect.stringContaining("in use by another process"),
      retry_after_s: 5,
    });
    const damaged = new EmbeddedDatabaseError(
      "/srv/data/pglite",
      "opened",
      new Error("PGlite failed to initialize properly"),
    );
    expect(damaged.message).toContain("/srv/data/pglite");
    expect(problemFromError(damaged)).toMatchObject({
      status: 503,
      code: "database_unavailable",
      detail: "The embedded database could not be opened; the server log says why.",
    });
    // The public sentence never carries the server's paths.
    expect(JSON.stringify(problemFromError(locked))).not.toContain("/srv/data");
  });
});
