/**
 * Runs after `npm install`/`npm ci`: makes Next.js tell route handlers the address of the
 * socket a request came on, which it otherwise hides. Next.js only fills `x-forwarded-for`
 * when the client did not send one, so any client could pass for any address; anonymous
 * callers' threads and rate limits depend on it. The patch sets a header of our own,
 * `x-agent-service-peer`, to the socket's address on every request, overwriting whatever the
 * client sent under that name. Idempotent. It fails the install (exit 1) when the line it hooks
 * into is gone, so an upgrade of Next.js cannot silently drop it.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const MARKER = "agent-service: the socket's address";
const ANCHOR =
  "            req.headers['x-forwarded-for'] ??= originalRequest == null ? void 0 : (_originalRequest_socket1 = originalRequest.socket) == null ? void 0 : _originalRequest_socket1.remoteAddress;\n";
const ADDED = `            // ${MARKER} (scripts/patch-next.mjs); never what the client sent.
            req.headers['x-agent-service-peer'] = originalRequest?.socket?.remoteAddress ?? '';
`;

// The CommonJS build (what `next start` and `next dev` run) and its ES module twin.
const root = path.resolve(import.meta.dirname, "..", "node_modules", "next", "dist");
let patched = 0;
for (const file of ["server/base-server.js", "esm/server/base-server.js"].map((f) =>
  path.join(root, f),
)) {
  const source = readFileSync(file, "utf8");
  if (source.includes(MARKER)) continue;
  if (!source.includes(ANCHOR)) {
    console.error(
      `patch-next: ${file} has changed upstream: the line that fills x-forwarded-for is not there. ` +
        "Client addresses (anonymous callers, rate limits) depend on this patch: update scripts/patch-next.mjs.",
    );
    process.exit(1);
  }
  writeFileSync(file, source.replace(ANCHOR, ANCHOR + ADDED));
  patched++;
}
if (patched > 0)
  console.info(
    `patch-next: route handlers get the socket's address (${patched} file(s) of Next.js).`,
  );
