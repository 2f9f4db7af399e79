/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite ships its own WASM and data files; bundling it breaks the paths it loads them from.
  serverExternalPackages: ["@electric-sql/pglite"],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
