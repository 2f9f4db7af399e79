/**
 * Preloaded into a server under test (`NODE_OPTIONS="--expose-gc --require <this file>"`, with
 * MEMORY_PROBE_FILE set): appends `process.memoryUsage()` of the process as one JSON line per
 * second to that file, and on SIGUSR2 runs full garbage collections and appends a line marked
 * `"gc": true`, so a test can compare the heap that is really retained at two moments.
 * Changes nothing else in the process; every child process that inherits NODE_OPTIONS writes
 * its own lines, told apart by `pid`.
 */
const { appendFileSync } = require("node:fs");

const file = process.env.MEMORY_PROBE_FILE;
if (file) {
  const write = (gc) => {
    const m = process.memoryUsage();
    const line = {
      pid: process.pid,
      t: Date.now(),
      gc,
      rss: m.rss,
      heapUsed: m.heapUsed,
      heapTotal: m.heapTotal,
      external: m.external,
      arrayBuffers: m.arrayBuffers,
    };
    try {
      appendFileSync(file, `${JSON.stringify(line)}\n`);
    } catch {
      // The test has gone: nothing to report to.
    }
  };
  setInterval(() => write(false), 1000).unref();
  // Three full collections with a pause between: what FinalizationRegistry callbacks release
  // (they run as tasks after a collection) is freed by the next one, so what remains is live.
  const collect = (left) => {
    if (typeof globalThis.gc === "function") globalThis.gc();
    if (left > 1) setTimeout(() => collect(left - 1), 50);
    else write(true);
  };
  process.on("SIGUSR2", () => collect(3));
}
