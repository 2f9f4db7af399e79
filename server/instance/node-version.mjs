// Plain JavaScript, not TypeScript: it must run on the Node.js versions it refuses, which cannot
// load the service's .ts files at all (Node.js 20 strips no types: the entry would fail with
// ERR_UNKNOWN_FILE_EXTENSION, a stack trace, before any check of its own could run).
import { readFileSync } from "node:fs";

/**
 * Why Node.js `version` cannot run the service whose package.json asks for `range` (its
 * `engines.node`: `^24.11.0`, or `>=24.11.0`), in a sentence; undefined when it can. A version
 * of a later major line than a caret range names is not refused: `warning` says it is untested.
 * A range of another form is not judged.
 */
export function nodeVersionProblem(version, range) {
  const wanted = /^(\^|>=)\s*(\d+)\.(\d+)\.(\d+)$/.exec(String(range ?? "").trim());
  const have = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!wanted || !have) return undefined;
  const [, kind, ...least] = wanted;
  const [major, minor, patch] = have.slice(1).map(Number);
  const [wantMajor, wantMinor, wantPatch] = least.map(Number);
  const tooOld =
    major < wantMajor ||
    (major === wantMajor && (minor < wantMinor || (minor === wantMinor && patch < wantPatch)));
  const line = `${wantMajor}.${wantMinor}.${wantPatch}`;
  if (tooOld)
    return {
      fatal: true,
      message:
        `Agent Service cannot start: it needs Node.js ${line} or later` +
        `${kind === "^" ? ` of the ${wantMajor}.x line` : ""} (package.json "engines": "${range}"), ` +
        `and this is Node.js ${version.replace(/^v/, "")}. Install Node.js ${wantMajor} ` +
        `(https://nodejs.org, or \`nvm install ${wantMajor}\`) and start it again with that node.`,
    };
  if (kind === "^" && major > wantMajor)
    return {
      fatal: false,
      message:
        `Agent Service is tested on Node.js ${wantMajor}.x (package.json "engines": "${range}"); ` +
        `this is Node.js ${version.replace(/^v/, "")}, which it starts on untested.`,
    };
  return undefined;
}

/** Stops this process, saying why, when its Node.js cannot run the service; warns on an untested one. */
export function checkNodeVersion() {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
  const problem = nodeVersionProblem(process.versions.node, pkg.engines?.node);
  if (!problem) return;
  console.error(problem.message);
  if (problem.fatal) process.exit(1);
}
