/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite ships its own WASM and data files; bundling it breaks the paths it loads them from.
  serverExternalPackages: ["@electric-sql/pglite"],
  poweredByHeader: false,
  // The security headers are set by the server entry on every response, Next.js's own
  // redirects and errors included (server/instance/headers.ts, server/instance/serve.ts).
  reactStrictMode: true,
  // `npm test` type-checks with `tsc --noEmit` right after the build (which writes the route
  // types, .next/types, that the check includes), so its build skips Next.js's own check of the
  // same program.
  typescript: { ignoreBuildErrors: process.env.TYPECHECK_AFTER_BUILD === "1" },
  experimental: {
    // A dashboard link or filter followed while the service is unreachable waits for it (and
    // goes on when it answers) instead of falling back to a full page load, which would show
    // the browser's "This site can't be reached" page.
    useOffline: true,
    // The REST paths' handlers are loaded by the server entry itself (server/instance/rest-routes.ts);
    // the dashboard's pages load when first asked for, so that a worker serving only the API
    // does not hold them in memory (BENCHMARKS.md, "Findings behind design choices").
    preloadEntriesOnStart: false,
    // For profiling only (bench/attribute-profile.ts): source maps of the server bundles, so a
    // CPU profile's samples map back to the service's files and to packages.
    serverSourceMaps: process.env.NEXT_SERVER_SOURCE_MAPS === "1",
  },
};

export default nextConfig;
