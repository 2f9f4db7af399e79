import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import path from "node:path";

/**
 * buildah and podman from Debian's packages (`.ci/run` installs them), for the test that builds
 * deploy/Dockerfile and runs the image. They read tests/helpers/containers.conf, whose ulimits
 * stay within what this machine grants (their defaults ask for more and are refused).
 */

export const CONTAINERS_CONF = path.resolve("tests", "helpers", "containers.conf");

/** The commands the image test needs; runc is looked for where Debian puts it, too. */
export const CONTAINER_TOOLS = ["buildah", "podman", "runc", "debootstrap"] as const;

export function onPath(command: string): boolean {
  const dirs = [...(process.env.PATH ?? "").split(":"), "/usr/sbin", "/sbin"];
  return dirs.some((dir) => {
    try {
      accessSync(path.join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

export type Ran = { code: number | null; stdout: string; stderr: string };

/**
 * Runs a command to its end within `timeoutMs`, in a process group of its own that is killed
 * whole when the time is up (buildah's RUN steps are its children). Rejects on a timeout, and
 * on a non-zero exit unless `allowFailure`.
 */
export function runCommand(
  command: string,
  args: string[],
  options: { timeoutMs: number; allowFailure?: boolean; env?: NodeJS.ProcessEnv },
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { ...process.env, CONTAINERS_CONF, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    // Only the end of a long output (a build's) is kept: it is what explains a failure.
    const keep = (text: string) => (text.length > 200_000 ? text.slice(-200_000) : text);
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk) => {
      stdout = keep(stdout + chunk);
    });
    child.stderr?.on("data", (chunk) => {
      stderr = keep(stderr + chunk);
    });
    const what = `${command} ${args.join(" ")}`;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-(child.pid as number), "SIGKILL");
      } catch {}
    }, options.timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      const tail = `${stdout}\n${stderr}`.trim().split("\n").slice(-60).join("\n");
      if (timedOut)
        reject(new Error(`${what} did not finish within ${options.timeoutMs / 1000} s:\n${tail}`));
      else if (code !== 0 && !options.allowFailure)
        reject(new Error(`${what} exited with ${code}:\n${tail}`));
      else resolve({ code, stdout, stderr });
    });
  });
}

/** podman with runc: crun, Debian's default, refuses this machine's cgroup mode. */
export const podman = (args: string[], timeoutMs: number, allowFailure = false) =>
  runCommand("podman", ["--runtime", "runc", ...args], { timeoutMs, allowFailure });
