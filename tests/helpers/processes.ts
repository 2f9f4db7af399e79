import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";

/** The service's processes, read from /proc (Linux): for tests that watch or kill them. */

export const pids = () =>
  readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number);

export function readProc(pid: number, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return undefined;
  }
}

export function parentOf(pid: number): number | undefined {
  const stat = readProc(pid, "stat");
  if (!stat) return undefined;
  // pid (comm) state ppid ...: comm may hold spaces and parentheses, so split after the last ')'.
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

/** A process and all its descendants (the primary and its web workers). */
export function processTree(root: number): number[] {
  const all = pids();
  const tree = [root];
  for (let grew = true; grew; ) {
    grew = false;
    for (const pid of all) {
      const parent = parentOf(pid);
      if (!tree.includes(pid) && parent !== undefined && tree.includes(parent)) {
        tree.push(pid);
        grew = true;
      }
    }
  }
  return tree;
}

/** The processes that hold the socket listening on `port`: the ones that really serve. */
export function listeningPids(port: number, among: number[]): number[] {
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    if (!existsSync(table)) continue;
    for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      const localPort = fields[1]?.split(":")[1];
      if (localPort && Number.parseInt(localPort, 16) === port && fields[3] === "0A")
        inodes.add(`socket:[${fields[9]}]`);
    }
  }
  return among.filter((pid) => {
    try {
      return readdirSync(`/proc/${pid}/fd`).some((fd) => {
        try {
          return inodes.has(readlinkSync(`/proc/${pid}/fd/${fd}`));
        } catch {
          return false;
        }
      });
    } catch {
      return false;
    }
  });
}

export function residentKb(pid: number): number | undefined {
  const match = /VmRSS:\s+(\d+) kB/.exec(readProc(pid, "status") ?? "");
  return match ? Number(match[1]) : undefined;
}

export function openFds(pid: number): number | undefined {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return undefined;
  }
}
