/**
 * Runs after `npm install`/`npm ci`: two changes to postgres.js 3.4.x, each idempotent, each
 * checked against the text it replaces (a changed upstream is reported, not patched).
 *
 * 1. A guard against porsager/postgres#1208 (also #1154, #1066): if the connection closes before
 *    a write scheduled with setImmediate runs, it dereferences a null socket and the queries
 *    waiting on it never settle. The guard settles them with CONNECTION_CLOSED, as the upstream
 *    fix (PR #1209) does, so that the service answers 503 and recovers. Remove once a fixed
 *    release is out.
 * 2. The prepared statement's signature remembered: postgres.js joins the parameter types to the
 *    whole text on every query to find its prepared statement, copying and hashing kilobytes each
 *    time. Patched, the same text and types give back the same string, whose hash V8 keeps; kept
 *    beside the connection's statements and dropped with them.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { patchFile } from "./patch-file.mjs";

const PATCHES = [
  {
    name: "guarded nextWrite (porsager/postgres#1208)",
    marker: "agent-service guard (porsager/postgres#1208)",
    edits: [
      [
        "  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)",
        `  function nextWrite(fn) {
    // agent-service guard (porsager/postgres#1208): the connection closed before this scheduled write ran.
    if (!socket) {
      nextWriteTimer !== null && clearImmediate(nextWriteTimer)
      chunk = nextWriteTimer = null
      error(Errors.connection('CONNECTION_CLOSED', options, socket))
      return false
    }
    const x = socket.write(chunk, fn)`,
      ],
    ],
  },
  {
    name: "remembered statement signatures",
    marker: "agent-service memo (statement signatures)",
    edits: [
      ["    , statements = {}\n", "    , statements = {}\n    , signatures = new Map()\n"],
      [
        "      statements = {}\n      needsTypes",
        "      statements = {}\n      signatures = new Map()\n      needsTypes",
      ],
      [
        "    q.signature = q.prepare && types + string\n",
        "    q.signature = q.prepare && signatureOf(types, string)\n",
      ],
      [
        "  function write(x, fn) {\n",
        `  // agent-service memo (statement signatures): \`types + string\`, the same string for the same
  // text and types, so that its hash is not computed again over the whole text on every query.
  function signatureOf(types, string) {
    let byTypes = signatures.get(string)
    byTypes === undefined && signatures.set(string, byTypes = new Map())
    const key = types.join()
    let signature = byTypes.get(key)
    signature === undefined && byTypes.set(key, signature = key + string)
    return signature
  }

  function write(x, fn) {
`,
      ],
    ],
  },
];

const root = path.resolve(import.meta.dirname, "..", "node_modules", "postgres");
for (const file of ["src/connection.js", "cjs/src/connection.js", "cf/src/connection.js"]) {
  const target = path.join(root, file);
  if (!existsSync(target)) continue;
  const applied = patchFile(target, PATCHES, {
    onChanged: (patch) =>
      console.warn(
        `patch-postgres: ${file} has changed upstream; "${patch.name}" was not applied (check whether it is still needed).`,
      ),
  });
  if (applied.length > 0)
    console.info(`patch-postgres: ${applied.join(", ")} in ${file} of postgres.js.`);
}
