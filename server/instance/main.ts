/**
 * The service's server entry: `npm start` (and `npm run dev` with `--dev`). Node.js runs it as
 * it is (TypeScript by type stripping, no bundler), so this file and what it imports use
 * relative imports with their extension; the rest of the service is Next.js's bundle, which the
 * web processes load through Next.js's custom-server API (server/instance/serve.ts).
 *
 * - The embedded database (PGlite) belongs to one process: one web process serves.
 * - On PostgreSQL, WEB_CONCURRENCY web workers (default: the cores available) share the port
 *   as a `node:cluster` (server/instance/primary.ts); WEB_CONCURRENCY=1 is one process.
 * - `--dev` runs Next.js's development server, always in one process.
 */
import cluster from "node:cluster";
import module from "node:module";
import path from "node:path";
import nextEnv from "@next/env";
import { checkNodeVersion } from "./node-version.mjs";

// Before anything that needs Node.js 24 (when this file is run without start.mjs, on a Node.js
// that strips types but is older than package.json's `engines`).
checkNodeVersion();

const dev = process.argv.includes("--dev");
// Before Next.js or React is loaded: both read it once.
(process.env as Record<string, string | undefined>).NODE_ENV ??= dev ? "development" : "production";
// .env files as Next.js reads them (real environment variables win), before anything reads the
// environment: WEB_CONCURRENCY and DATABASE_URL decide how many processes start, LOG_LEVEL how
// the log is made (hence the imports below come after).
nextEnv.loadEnvConfig(path.resolve(import.meta.dirname, "..", ".."), dev, {
  info: () => {},
  error: (...args: unknown[]) => console.error(...args),
});

const { ConfigError, parseConfig } = await import("../config.ts");
const { log } = await import("../observability/index.ts");

try {
  const config = parseConfig(process.env);
  if (cluster.isPrimary && config.webConcurrency > 1 && !dev) {
    // The workers' own files stripped of their types now and written to Node.js's compile cache
    // (NODE_COMPILE_CACHE, which npm start sets): a worker then loads them from it and never
    // loads the TypeScript stripper itself, about 10-17 MB of resident memory a process
    // (BENCHMARKS.md). serve.ts loads Next.js only when called.
    await import("./serve.ts");
    module.flushCompileCache();
    const { runPrimary } = await import("./primary.ts");
    runPrimary(config);
  } else {
    const { serve } = await import("./serve.ts");
    await serve(config, { dev });
  }
} catch (error) {
  // A wrong setting says which; anything else (the port in use, say) is logged whole.
  if (error instanceof ConfigError) log.fatal(`Agent Service cannot start. ${error.message}`);
  else log.fatal({ err: error }, `Agent Service cannot start: ${(error as Error)?.message}`);
  log.flush(() => process.exit(1));
}
