import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { nodeVersionProblem } from "@/server/instance";

const engines = JSON.parse(readFileSync("package.json", "utf8")).engines.node as string;

/** An unsupported Node.js is refused with a sentence naming the version needed, not a stack trace. */
describe("the Node.js version check", () => {
  it("refuses what is older than package.json's engines, and warns on a later major line", () => {
    expect(nodeVersionProblem(process.versions.node, engines)).toBeUndefined();
    expect(nodeVersionProblem("24.11.0", "^24.11.0")).toBeUndefined();
    for (const old of ["20.20.2", "22.18.0", "24.10.9", "v24.0.0"]) {
      const problem = nodeVersionProblem(old, "^24.11.0");
      expect(problem?.fatal, old).toBe(true);
      expect(problem?.message).toContain("needs Node.js 24.11.0 or later of the 24.x line");
      expect(problem?.message).toContain(`this is Node.js ${old.replace("v", "")}`);
    }
    expect(nodeVersionProblem("25.2.0", "^24.11.0")).toMatchObject({ fatal: false });
    expect(nodeVersionProblem("25.2.0", ">=24.11.0")).toBeUndefined();
    expect(nodeVersionProblem("20.0.0", "24 || 26")).toBeUndefined();
  });

  // The machine's own Node.js 20, when it has one: the .ts entry cannot even load there.
  const oldNode = "/usr/bin/node";
  const oldVersion = existsSync(oldNode)
    ? spawnSync(oldNode, ["--version"], { encoding: "utf8" }).stdout.trim()
    : "";
  it.runIf(/^v(1\d|2[0-3])\./.test(oldVersion))(
    `says so on ${oldVersion || "an old Node.js"} from npm start's entry, and exits 1`,
    () => {
      const run = spawnSync(oldNode, [path.resolve("server/instance/start.mjs")], {
        encoding: "utf8",
        env: { PATH: process.env.PATH, NODE_ENV: "production" },
      });
      expect(run.status).toBe(1);
      expect(run.stderr.trim()).toBe(
        `Agent Service cannot start: it needs Node.js 24.11.0 or later of the 24.x line (package.json "engines": "^24.11.0"), and this is Node.js ${oldVersion.slice(1)}. Install Node.js 24 (https://nodejs.org, or \`nvm install 24\`) and start it again with that node.`,
      );
      expect(run.stderr).not.toMatch(/ERR_UNKNOWN_FILE_EXTENSION|\n\s+at /);
    },
  );
});
