import { execFileSync } from "node:child_process";
import fs, { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BATCH_MS, logStreams } from "@/server/observability";

/**
 * The log's writer (server/observability/log-stream.ts): request lines wait and go out together,
 * every other line goes out at once with what waited before it, and nothing waiting is lost
 * when the process ends.
 */

const root = path.resolve(import.meta.dirname, "../..");
const directories: string[] = [];
const descriptors: number[] = [];
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  for (const fd of descriptors.splice(0)) closeSync(fd);
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true });
});

/** A file to log to, opened (so that the writer can write at once): its path and descriptor. */
function tempFile(): { file: string; fd: number } {
  const directory = mkdtempSync(path.join(tmpdir(), "log-stream-"));
  directories.push(directory);
  const file = path.join(directory, "log");
  const fd = openSync(file, "a");
  descriptors.push(fd);
  return { file, fd };
}

/**
 * Waits, through 200 reads of the file (real I/O, whatever the timers), until it has `count`
 * lines; rejects if it never does.
 */
async function untilLines(file: string, count: number): Promise<void> {
  for (let read = 0; read < 200; read++) {
    if (messages(file).length >= count) return;
    await fs.promises.readFile(file);
  }
  throw new Error(`the log has ${messages(file).length} lines, not ${count}`);
}

const messages = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { msg: string }).msg);

describe("the log's writer", () => {
  it("writes a run of request lines in a few writes, not one each, and in order", async () => {
    const writes = vi.spyOn(fs, "write");
    const { file, fd } = tempFile();
    const streams = logStreams(fd);
    const requests = pino({}, streams.batched);
    const sent = Array.from({ length: 200 }, (_, i) => `request ${i}`);
    for (const msg of sent) requests.info(msg);
    await vi.waitFor(() => expect(messages(file)).toHaveLength(200));
    expect(messages(file)).toEqual(sent);
    // 200 lines of ~80 bytes: one write when 16 KiB wait, one for the rest when the wait ends.
    expect(writes.mock.calls.length).toBeLessThanOrEqual(3);
  });

  it("writes any other line at once, after the request lines that waited before it", async () => {
    // Frozen timers: a request line goes out only with another line, or when the wait is over.
    vi.useFakeTimers();
    const writes = vi.spyOn(fs, "write");
    const { file, fd } = tempFile();
    const streams = logStreams(fd);
    const requests = pino({}, streams.batched);
    const events = pino({}, streams.immediate);
    requests.info("request 1");
    requests.info("request 2");
    expect(writes).not.toHaveBeenCalled();
    events.info("scheduler on");
    // In the same tick: one write, the two waiting request lines first.
    expect(writes).toHaveBeenCalledTimes(1);
    const written = String(writes.mock.calls[0]?.[1]);
    expect(written.indexOf('"request 2"')).toBeGreaterThan(written.indexOf('"request 1"'));
    expect(written.indexOf('"scheduler on"')).toBeGreaterThan(written.indexOf('"request 2"'));
    // A refused request's line (warn) does not wait for the timer either.
    requests.warn("request 3, refused");
    await untilLines(file, 4);
    expect(messages(file)).toEqual([
      "request 1",
      "request 2",
      "scheduler on",
      "request 3, refused",
    ]);
    // An ordinary request line waits for the timer, BATCH_MS.
    requests.info("request 4");
    await expect(untilLines(file, 5)).rejects.toThrow();
    vi.advanceTimersByTime(BATCH_MS);
    await untilLines(file, 5);
    expect(messages(file).at(-1)).toBe("request 4");
  });

  it("writes what waits when the process exits, or ends on its own", () => {
    for (const ending of ["process.exit(0);", ""]) {
      const output = execFileSync(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `import pino from "pino";
           import { logStreams } from "./server/observability/index.ts";
           const requests = pino({}, logStreams().batched);
           requests.info("the last request");
           ${ending}`,
        ],
        { cwd: root, encoding: "utf8" },
      );
      expect(output, ending || "ends on its own").toContain('"msg":"the last request"');
    }
  });
});
