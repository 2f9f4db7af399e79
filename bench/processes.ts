import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { pids, processTree } from "../tests/helpers/processes";
import { startServer } from "../tests/helpers/server";

/**
 * A bench helper run as a process of its own (`node --import tsx <script>`), so that its work
 * shares no event loop with autocannon and its CPU time can be read from /proc like the
 * service's. The script prints its URL as the first line on stdout; an IPC channel carries
 * requests such as the fake model's counters, and its closing ends the child.
 */
export type BenchChild = {
  url: string;
  pid: number;
  /** Sends `message` and resolves with the first message back whose `type` is the same. */
  ask<T extends { type: string }>(message: { type: string }): Promise<T>;
  stop(): Promise<void>;
};

export async function startChild(
  script: string,
  env: Record<string, string> = {},
): Promise<BenchChild> {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", script], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} printed no URL in 30 s`)), 30_000);
    child.stdout?.on("data", (chunk) => {
      stdout += chunk;
      const line = /^(http\S+)\n/.exec(stdout);
      if (line) {
        clearTimeout(timer);
        resolve(line[1] as string);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited (${code}) before printing its URL:\n${stderr}`));
    });
  });
  return {
    url,
    pid: child.pid as number,
    ask: <T extends { type: string }>(message: { type: string }) =>
      new Promise<T>((resolve) => {
        const onMessage = (reply: T) => {
          if (reply?.type !== message.type) return;
          child.off("message", onMessage);
          resolve(reply);
        };
        child.on("message", onMessage);
        child.send(message);
      }),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/**
 * CPU time (all threads) a process and its children have used so far, in ms (Linux /proc): the
 * service's primary and its web workers together. Read from each thread's time on a CPU in
 * nanoseconds (/proc/<pid>/task/<tid>/schedstat), not in clock ticks (10 ms), so that a
 * measurement of a second is precise. A child or thread that exited takes its time with it, so
 * read it across a span no worker ends in.
 */
export async function cpuMs(pid: number): Promise<number> {
  let ns = 0;
  for (const member of processTree(pid)) {
    const threads = await readdir(`/proc/${member}/task`).catch(() => [] as string[]);
    for (const tid of threads) {
      const stat = await readFile(`/proc/${member}/task/${tid}/schedstat`, "utf8").catch(() => "");
      ns += Number(stat.split(" ")[0] || 0);
    }
  }
  return ns / 1e6;
}

/** The resident memory of a process and its children together, in MiB (Linux). */
export async function residentMiB(pid: number): Promise<number> {
  let kib = 0;
  for (const member of processTree(pid)) {
    const status = await readFile(`/proc/${member}/status`, "utf8").catch(() => undefined);
    if (status !== undefined) kib += Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
  }
  return kib / 1024;
}

/**
 * The memory of a process and its children together, in MiB, as their proportional set sizes
 * (Linux's smaps_rollup): a page several of them share (the Node.js binary, forked pages) counted
 * once in all, as a container's memory limit counts it, where summed RSS counts it in each.
 */
export async function proportionalMiB(pid: number): Promise<number> {
  let kib = 0;
  for (const member of processTree(pid)) {
    const rollup = await readFile(`/proc/${member}/smaps_rollup`, "utf8").catch(() => undefined);
    if (rollup !== undefined) kib += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
  }
  return kib / 1024;
}

/**
 * Follows a process tree's memory every `everyMs` until `stop`, which gives the maxima of its
 * summed resident set sizes and of its summed proportional set sizes.
 */
export function watchPeakResident(
  pid: number,
  everyMs = 250,
): { stop(): Promise<{ rss: number; pss: number }> } {
  const peak = { rss: Number.NaN, pss: Number.NaN };
  const higher = (a: number, b: number) => (Number.isNaN(a) ? b : Math.max(a, b));
  const sample = () =>
    Promise.all([residentMiB(pid), proportionalMiB(pid)]).then(
      ([rss, pss]) => {
        peak.rss = higher(peak.rss, rss);
        peak.pss = higher(peak.pss, pss);
      },
      () => {},
    );
  void sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop: async () => {
      clearInterval(timer);
      await sample();
      return peak;
    },
  };
}

let clockTicks: number | undefined;

/**
 * CPU time of every PostgreSQL process of this machine (the server and its backends), in ms,
 * with the time of backends that have exited: the postmaster reaps them, so their time is in its
 * cutime and cstime. (Without it, a row whose connections close reads a negative figure.) With
 * `postmaster`, only that server's: it and its children.
 */
export async function postgresCpuMs(postmaster?: number): Promise<number> {
  clockTicks ??= Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  let ticks = 0;
  for (const pid of pids()) {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
    if (!stat?.includes("(postgres)")) continue;
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (postmaster !== undefined && pid !== postmaster && Number(fields[1]) !== postmaster)
      continue;
    // utime, stime, cutime, cstime: fields 14 to 17 of the whole line.
    ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  }
  return (ticks * 1000) / clockTicks;
}

/**
 * Where a measurement's CPU went, in ms: the service (all its processes), PostgreSQL, the load
 * generator (this process: autocannon runs here) and, when given, the fake model's process.
 */
export async function cpuSplit(servicePid: number, modelPid?: number) {
  const usage = process.cpuUsage();
  return {
    service: await cpuMs(servicePid),
    database: await postgresCpuMs(),
    load_generator: (usage.user + usage.system) / 1000,
    model: modelPid === undefined ? 0 : await cpuMs(modelPid),
  };
}

export type CpuSplit = Awaited<ReturnType<typeof cpuSplit>>;

export function cpuSpent(before: CpuSplit, after: CpuSplit): CpuSplit {
  return {
    service: after.service - before.service,
    database: after.database - before.database,
    load_generator: after.load_generator - before.load_generator,
    model: after.model - before.model,
  };
}

/**
 * The built service of another checkout of this repository (`directory`, built there), started
 * from its own server entry: startServer starts the one of the working directory. For an A/B of
 * two builds in one run (bench/cpu-by-thread.ts); none without a directory.
 */
export async function startServerIn(directory: string | undefined, env: Record<string, string>) {
  if (!directory) return undefined;
  const here = process.cwd();
  process.chdir(directory);
  try {
    return await startServer(env);
  } finally {
    process.chdir(here);
  }
}
