// The last stage of `npm test`: the browser tests and the image test side by side. The image
// test is minutes of buildah, much of it waiting on the npm registry and on disk, and the
// browser tests leave part of both cores idle, so side by side they end sooner than in turn
// (BENCHMARKS.md, "CI's time"). Playwright's output goes on as it comes; the image test's is
// held and printed whole after it, so that neither interleaves with the other. Fails if either
// does.
import { spawn } from "node:child_process";

const run = (command, args, hold) =>
  new Promise((resolve) => {
    const child = spawn(command, args, { stdio: hold ? ["ignore", "pipe", "pipe"] : "inherit" });
    const held = [];
    if (hold) {
      child.stdout.on("data", (chunk) => held.push(chunk));
      child.stderr.on("data", (chunk) => held.push(chunk));
    }
    child.on("close", (code, signal) => resolve({ code: code ?? 1, signal, held }));
  });

const image = run("npx", ["vitest", "run", "--project", "image"], true);
const browsers = await run("npx", ["playwright", "test"], false);
const { code, signal, held } = await image;
process.stdout.write("\n--- the image test (run beside the browser tests) ---\n");
for (const chunk of held) process.stdout.write(chunk);
if (signal) process.stdout.write(`the image test ended on ${signal}\n`);
process.exit(browsers.code !== 0 ? browsers.code : code);
