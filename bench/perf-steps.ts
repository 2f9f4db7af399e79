import { execFileSync } from "node:child_process";
import { originOf } from "./profile-origins";

/**
 * A JSON chat's steps at one connection, read off a `perf record` of the serving process
 * (bench/chat-phases.ts): each step starts and ends at a system call of the main thread (the
 * request read, a statement written, its result read, the model asked, its reply read, the
 * answer written), and the CPU samples between two calls say how much of the step the thread
 * spent on the CPU, and in what code. The rest of a step is waiting: on PostgreSQL, the model,
 * or the kernel to wake the thread.
 */

/** What to record: CPU samples at SAMPLE_HZ with call chains, and the socket calls. */
export const SAMPLE_HZ = 20_000;
export const PERF_RECORD_ARGS = [
  "record",
  "--call-graph",
  "fp",
  "-F",
  String(SAMPLE_HZ),
  ...["cpu-clock", "syscalls:sys_enter_write", "syscalls:sys_enter_writev"].flatMap((e) => [
    "-e",
    e,
  ]),
  ...["syscalls:sys_enter_read", "syscalls:sys_exit_read"].flatMap((e) => ["-e", e]),
];
/** Node.js options that let perf name JavaScript frames. */
export const PERF_NODE_OPTIONS = "--perf-basic-prof --interpreted-frames-native-stack";

/** The steps of one chat, from the model's reply to the next chat's model call. */
export const STEPS = [
  "reply read → store sent",
  "store statement",
  "stored → answer written",
  "answer written → next request read (the client)",
  "request read → opening sent",
  "opening statement",
  "opening read → model asked",
] as const;

type Call = { t: number; op: "read" | "write"; fd: number; cpu: Map<string, number> };

export type Step = { name: string; wallMs: number; cpuMs: number; origins: [string, number][] };

/** The steps of every whole chat recorded in `perfData`, averaged. */
export function chatSteps(perfData: string): { chats: number; steps: Step[] } {
  const calls = mainThreadCalls(perfData);
  // The model's fd: the one read after a long wait (the model's 40 ms).
  const modelFd = mostCommon(
    calls.filter((c, i) => c.op === "read" && i > 0 && c.t - (calls[i - 1]?.t ?? 0) > 0.02),
  );
  const sums = STEPS.map(() => ({ wall: 0, samples: 0, origins: new Map<string, number>() }));
  let chats = 0;
  for (let i = 0; i + 7 < calls.length; i++) {
    const c = calls.slice(i, i + 8) as Call[];
    const [reply, store, stored, answer, request, opening, opened, asked] = c as [
      Call,
      Call,
      Call,
      Call,
      Call,
      Call,
      Call,
      Call,
    ];
    // A whole chat, and nothing else in between (a timer's statement, the request log's write).
    const whole =
      reply.op === "read" &&
      reply.fd === modelFd &&
      store.op === "write" &&
      stored.op === "read" &&
      stored.fd === store.fd &&
      answer.op === "write" &&
      ![modelFd, store.fd].includes(answer.fd) &&
      request.op === "read" &&
      request.fd === answer.fd &&
      opening.op === "write" &&
      ![modelFd, answer.fd].includes(opening.fd) &&
      opened.op === "read" &&
      opened.fd === opening.fd &&
      asked.op === "write" &&
      asked.fd === modelFd;
    if (!whole) continue;
    chats++;
    for (let s = 0; s < STEPS.length; s++) {
      const [from, to] = [c[s] as Call, c[s + 1] as Call];
      const sum = sums[s] as (typeof sums)[number];
      sum.wall += to.t - from.t;
      for (const [origin, n] of to.cpu) {
        sum.samples += n;
        sum.origins.set(origin, (sum.origins.get(origin) ?? 0) + n);
      }
    }
    i += 6;
  }
  const sampleMs = 1000 / SAMPLE_HZ;
  return {
    chats,
    steps: STEPS.map((name, s) => {
      const sum = sums[s] as (typeof sums)[number];
      return {
        name,
        wallMs: (1000 * sum.wall) / Math.max(chats, 1),
        cpuMs: (sum.samples * sampleMs) / Math.max(chats, 1),
        origins: [...sum.origins]
          .map(([origin, n]): [string, number] => [origin, (n * sampleMs) / Math.max(chats, 1)])
          .sort((a, b) => b[1] - a[1]),
      };
    }),
  };
}

/**
 * The main thread's socket calls, each with the CPU samples taken since the call before. Reads
 * and writes of 8 bytes are libuv's wake-ups (eventfd), not sockets; failed reads are none.
 */
function mainThreadCalls(perfData: string): Call[] {
  const text = execFileSync(
    "perf",
    ["script", "-i", perfData, "-F", "tid,time,event,ip,sym,trace"],
    {
      maxBuffer: 1 << 30,
      stdio: ["ignore", "pipe", "ignore"],
    },
  ).toString();
  const events = text.split("\n\n").flatMap((block) => {
    const [head, ...frames] = block.split("\n").filter(Boolean);
    const m = /^\s*(\d+)\s+([\d.]+):\s+(\S+):\s*(.*)$/.exec(head ?? "");
    if (!m) return [];
    const symbols = frames.map((f) =>
      f
        .trim()
        .replace(/^[0-9a-f]+\s+/, "")
        .replace(/\s+\(.*\)$/, ""),
    );
    return [
      { tid: Number(m[1]), t: Number(m[2]), event: m[3] as string, rest: m[4] as string, symbols },
    ];
  });
  const reads = new Map<number, number>();
  for (const e of events)
    if (e.event === "syscalls:sys_enter_read") reads.set(e.tid, (reads.get(e.tid) ?? 0) + 1);
  const main = [...reads].sort((a, b) => b[1] - a[1])[0]?.[0];
  const calls: Call[] = [];
  let cpu = new Map<string, number>();
  let readFd = -1;
  for (const e of events) {
    if (e.tid !== main) continue;
    if (e.event === "cpu-clock") {
      const origin = sampleOrigin(e.symbols);
      cpu.set(origin, (cpu.get(origin) ?? 0) + 1);
    } else if (e.event === "syscalls:sys_enter_read") {
      readFd = Number.parseInt(/fd: (0x[0-9a-f]+)/.exec(e.rest)?.[1] ?? "-1", 16);
    } else {
      const read = e.event === "syscalls:sys_exit_read";
      const size = read
        ? Number.parseInt(e.rest.split(/\s+/)[0] ?? "0", 16)
        : Number.parseInt(/(?:count|vlen): (0x[0-9a-f]+)/.exec(e.rest)?.[1] ?? "0", 16);
      const fd = read ? readFd : Number.parseInt(/fd: (0x[0-9a-f]+)/.exec(e.rest)?.[1] ?? "-1", 16);
      // A failed read (EAGAIN, as a large unsigned number) and eventfd's 8 bytes are skipped.
      if (!(size > 0 && size < 2 ** 31) || size === 8) continue;
      calls.push({ t: e.t, op: read ? "read" : "write", fd, cpu });
      cpu = new Map();
    }
  }
  return calls;
}

/** Where a sample was: the nearest JavaScript function's origin, else the native leaf. */
function sampleOrigin(symbols: string[]): string {
  for (const symbol of symbols) {
    // perf's names for JIT code: `JS:*name /path/file.js:line:column` (line, column from 1).
    const m = /^JS:[*+^~']?(.*) (\S+):(\d+):(\d+)$/.exec(symbol);
    if (!m) continue;
    const url = (m[2] as string).startsWith("/") ? `file://${m[2]}` : (m[2] as string);
    return originOf({
      functionName: m[1] as string,
      url,
      lineNumber: Number(m[3]) - 1,
      columnNumber: Number(m[4]) - 1,
    });
  }
  const leaf = symbols[0] ?? "?";
  return /^(Builtins_|v8::|node::|uv_|Runtime_)/.test(leaf)
    ? "native (V8, Node.js, libuv)"
    : "kernel and libc";
}

function mostCommon(calls: Call[]): number {
  const counts = new Map<number, number>();
  for (const c of calls) counts.set(c.fd, (counts.get(c.fd) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? -1;
}
