/**
 * A process that tries to take the data-directory lock (tests/unit/pglite-lock.test.ts):
 * `node --import tsx tests/helpers/lock-contender.ts <dataDir>`. It prints `ready`, waits for a
 * line `go <epoch ms>` on stdin, spins until that moment (so that contenders try together),
 * tries once and prints `won` or `refused <json>`. A winner holds the lock until its stdin
 * closes (then releases it and exits) or it is killed; a refused one exits at once.
 */
import { createInterface } from "node:readline";
import { type DataDirLockedError, lockDataDir } from "../../db/pglite-lock";

const dataDir = process.argv[2] as string;
const lines = createInterface({ input: process.stdin });
process.stdout.write("ready\n");

lines.once("line", (line) => {
  const at = Number(line.split(" ")[1] ?? 0);
  while (Date.now() < at) {
    // spin: start at the same moment as the others
  }
  try {
    const lock = lockDataDir(dataDir);
    process.stdout.write("won\n");
    lines.once("close", () => {
      lock.release();
      process.exit(0);
    });
  } catch (error) {
    const { code, holder, message } = error as DataDirLockedError;
    process.stdout.write(`refused ${JSON.stringify({ code, holder, message })}\n`);
    process.exit(0);
  }
});
