// Preloaded with `--require` (NODE_OPTIONS refuses --cpu-prof): profiles the process from its
// start and writes CPU_PROFILE_DIR/<pid>.cpuprofile when it exits. The inspector session of
// the main thread answers synchronously, so the profile can be taken in an 'exit' handler.
const { Session } = require("node:inspector");
const { writeFileSync } = require("node:fs");
const path = require("node:path");

const dir = process.env.CPU_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post("Profiler.setSamplingInterval", {
    interval: Number(process.env.CPU_PROFILE_INTERVAL_US || 200),
  });
  session.post("Profiler.enable");
  session.post("Profiler.start");
  process.on("exit", () => {
    session.post("Profiler.stop", (error, result) => {
      if (!error)
        writeFileSync(path.join(dir, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
