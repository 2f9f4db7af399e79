// Preloaded with `--require` by bench/allocation-profile.ts: samples the process's allocations
// from SIGUSR2 (sent after the warm-up) until it exits, and writes
// ALLOCATION_PROFILE_DIR/<pid>.heapprofile then. Objects the collector has already freed are
// kept in the samples: the profile counts what was allocated, not what is still alive.
const { Session } = require("node:inspector");
const { writeFileSync } = require("node:fs");
const path = require("node:path");

const dir = process.env.ALLOCATION_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post("HeapProfiler.enable");
  process.on("SIGUSR2", () => {
    session.post("HeapProfiler.startSampling", {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  });
  process.on("exit", () => {
    session.post("HeapProfiler.stopSampling", (error, result) => {
      if (!error)
        writeFileSync(path.join(dir, `${process.pid}.heapprofile`), JSON.stringify(result.profile));
    });
  });
}
