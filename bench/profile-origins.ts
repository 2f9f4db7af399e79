import { existsSync, readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { fileURLToPath } from "node:url";

/**
 * Where a sampled function's code comes from, for bench/attribute-profile.ts: a package, a file
 * of the service, Node.js's internals or native code. A production build's chunks name nothing; built with source maps
 * (`NEXT_SERVER_SOURCE_MAPS=1 npx next build --no-mangling`), each maps back to its source file.
 */

/** A function's place, as a CPU profile gives it (line and column from 0). */
export type CallFrame = {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
};

const maps = new Map<string, SourceMap | undefined>();
function sourceMap(path: string): SourceMap | undefined {
  if (!maps.has(path)) {
    const mapPath = `${path}.map`;
    maps.set(
      path,
      existsSync(mapPath) ? new SourceMap(JSON.parse(readFileSync(mapPath, "utf8"))) : undefined,
    );
  }
  return maps.get(path);
}

/**
 * The package of a path under node_modules. drizzle-orm's own source maps name its files
 * `../src/…`, which resolve to `node_modules/src/…`.
 */
function packageOf(path: string): string | undefined {
  const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(decodeURIComponent(path))?.[1];
  return name === "src" ? "drizzle-orm" : name;
}

/** Where a node's code comes from: a package, a file of the service, node's internals, native. */
export function originOf({ url, functionName, lineNumber, columnNumber }: CallFrame): string {
  if (!url) return functionName.startsWith("(") ? functionName : `native ${functionName}`;
  if (url.startsWith("node:")) return url.split("/").slice(0, 3).join("/");
  // The only WebAssembly a chat runs is undici's HTTP parser (llhttp).
  if (url.startsWith("wasm://")) return "wasm (undici's llhttp)";
  const path = url.startsWith("file://") ? fileURLToPath(url) : url;
  if (path.includes("/.next/server/")) {
    const map = sourceMap(path);
    if (!map) return "bundled, without a source map";
    const source = (map.findEntry(lineNumber, columnNumber) as { originalSource?: string })
      .originalSource;
    if (!source) return "bundled, unmapped";
    const bundled = packageOf(source);
    if (bundled) return `package ${bundled}`;
    return source.includes("[turbopack]")
      ? "package next"
      : `service ${source.replace(/^.*?(?=(server|app|db|components)\/)/, "")}`;
  }
  const unbundled = packageOf(path);
  if (unbundled) return `package ${unbundled}`;
  // The server entry (server/instance) and the bench's own files run as they are, unbundled.
  return `service ${path.replace(/^.*?(?=(server|app|db|components|bench)\/)/, "")}`;
}

/** The groups reported, by origin. */
export function groupOf(origin: string): string {
  if (origin === "(garbage collector)") return "garbage collection";
  if (/^native (writev|writeBuffer|writeString|writeUtf8String)$/.test(origin))
    return "socket writes";
  if (/^node:(_http|net|internal\/stream_base_commons|internal\/http)/.test(origin))
    return "node http and sockets";
  if (/^node:internal\/(webstreams|streams)/.test(origin)) return "streams (web and node)";
  if (
    /async_hooks|^node:internal\/(process\/task_queues|abort_controller|event_target)/.test(origin)
  )
    return "async context, timers, signals";
  if (/^package (next|react|react-dom|path-to-regexp)$/.test(origin)) return "Next.js";
  if (/^package (postgres|drizzle-orm)$/.test(origin)) return "database driver and ORM";
  if (/^package (@trpc\/.*|zod)$/.test(origin)) return "tRPC and zod";
  if (/^package (prom-client|pino|.*opentelemetry.*)$/.test(origin)) return "metrics and logs";
  if (/^(package (undici|eventsource-parser)|node:internal\/deps\/undici|wasm)/.test(origin))
    return "model client (undici, SSE parser)";
  if (/^native parse$|^service server\/providers\//.test(origin))
    return "model client (undici, SSE parser)";
  if (origin.startsWith("service ")) return "the service's own code";
  if (origin === "native runMicrotasks" || origin === "(program)") return "microtasks, program";
  return "other";
}
