/**
 * Security headers on every response (pages, REST, tRPC, errors). The dashboard's pages are
 * rendered with Next.js's inline bootstrap scripts, so scripts and styles allow 'unsafe-inline'
 * from this origin only (no nonces: they would make every page dynamic); wallets reach their
 * chains' RPC endpoints over https/wss. Nothing may frame the service.
 */
const contentSecurityPolicy = [
  "default-src 'self'",
  `script-src 'self' 'unsafe-inline'${process.env.NODE_ENV === "development" ? " 'unsafe-eval'" : ""}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self' https: wss:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const securityHeaders = [
  { key: "Content-Security-Policy", value: contentSecurityPolicy },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=()" },
];

/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite ships its own WASM and data files; bundling it breaks the paths it loads them from.
  serverExternalPackages: ["@electric-sql/pglite"],
  poweredByHeader: false,
  reactStrictMode: true,
  experimental: {
    // A dashboard link or filter followed while the service is unreachable waits for it (and
    // goes on when it answers) instead of falling back to a full page load, which would show
    // the browser's "This site can't be reached" page.
    useOffline: true,
    // For profiling only (bench/attribute-profile.ts): source maps of the server bundles, so a
    // CPU profile's samples map back to the service's files and to packages.
    serverSourceMaps: process.env.NEXT_SERVER_SOURCE_MAPS === "1",
  },
  async headers() {
    return [{ source: "/:path*", headers: securityHeaders }];
  },
};

export default nextConfig;
