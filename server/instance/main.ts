// The server entry (`npm start`). Node.js runs it by type stripping, so this file and its imports
// use relative imports with their extension; the rest is Next.js's bundle (serve.ts).
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

const { ConfigError, parseConfig } = await import("../frame/config.ts");
const { log } = await import("../observability/index.ts");

try {
  const config = parseConfig(process.env);
  if (cluster.isPrimary && config.webConcurrency > 1 && !dev) {
    // The workers' own files stripped of their types now and written to Node.js's compile cache
    // (NODE_COMPILE_CACHE, set by npm start), so that a worker never loads the TypeScript stripper
    // and its memory. serve.ts loads Next.js only when called.
    await import("./serve.ts");
    module.flushCompileCache();
    const { runPrimary } = await import("./primary.ts");
    await runPrimary(config);
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
