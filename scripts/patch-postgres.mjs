/**
 * Runs after `npm install`/`npm ci`: guards postgres.js 3.4.x against porsager/postgres#1208
 * (also #1154, #1066). A small write is scheduled with setImmediate; if the connection closes
 * first, the scheduled write dereferences a null socket and throws an uncaught TypeError, and the
 * queries waiting on it never settle (we saw requests hang ~24 s while PostgreSQL restarted).
 * The guard settles them with CONNECTION_CLOSED instead, as the upstream fix (PR #1209) does, so
 * the service answers 503 and recovers. Idempotent; remove once a fixed release is out.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const MARKER = "agent-service guard (porsager/postgres#1208)";
const UNGUARDED = "  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)";
const GUARDED = `  function nextWrite(fn) {
    // ${MARKER}: the connection closed before this scheduled write ran.
    if (!socket) {
      nextWriteTimer !== null && clearImmediate(nextWriteTimer)
      chunk = nextWriteTimer = null
      error(Errors.connection('CONNECTION_CLOSED', options, socket))
      return false
    }
    const x = socket.write(chunk, fn)`;

const root = path.resolve(import.meta.dirname, "..", "node_modules", "postgres");
let patched = 0;
for (const file of ["src/connection.js", "cjs/src/connection.js", "cf/src/connection.js"]) {
  const target = path.join(root, file);
  if (!existsSync(target)) continue;
  const source = readFileSync(target, "utf8");
  if (source.includes(MARKER)) continue;
  if (!source.includes(UNGUARDED)) {
    console.warn(
      `patch-postgres: ${file} has changed upstream; check whether porsager/postgres#1208 is fixed.`,
    );
    continue;
  }
  writeFileSync(target, source.replace(UNGUARDED, GUARDED));
  patched++;
}
if (patched > 0)
  console.info(`patch-postgres: guarded nextWrite in ${patched} file(s) of postgres.js.`);
