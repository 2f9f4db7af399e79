import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { freePort } from "./server";

/** HAProxy from Debian's package (`.ci/run` installs it), running deploy/haproxy.cfg. */
export const HAPROXY = "/usr/sbin/haproxy";
export const haproxyInstalled = existsSync(HAPROXY);

export type RunningBalancer = {
  url: string;
  /** What HAProxy logged, each line with the time it arrived here. */
  lines(): Array<{ at: number; text: string }>;
  stop(): Promise<void>;
};

/**
 * Starts HAProxy in the foreground on a free loopback port with the shipped configuration,
 * in front of two instances given by their base URLs.
 */
export async function startBalancer(app1: string, app2: string): Promise<RunningBalancer> {
  const port = await freePort();
  const hostPort = (url: string) => new URL(url).host;
  const child: ChildProcess = spawn(HAPROXY, ["-db", "-f", path.resolve("deploy", "haproxy.cfg")], {
    env: {
      PATH: process.env.PATH,
      LISTEN: `127.0.0.1:${port}`,
      APP1: hostPort(app1),
      APP2: hostPort(app2),
    } as unknown as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: Array<{ at: number; text: string }> = [];
  let partial = "";
  const collect = (chunk: Buffer) => {
    const text = partial + chunk.toString();
    const complete = text.split("\n");
    partial = complete.pop() ?? "";
    for (const line of complete) lines.push({ at: Date.now(), text: line });
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`HAProxy exited:\n${lines.map((l) => l.text).join("\n")}`);
    const up = await fetch(`${url}/health/live`).then(
      (response) => response.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`HAProxy did not answer:\n${lines.map((l) => l.text).join("\n")}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    lines: () => lines,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
