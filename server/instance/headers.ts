// Imported by the server entry, which Node.js runs without a bundler: relative imports only, with
// their extension.

/**
 * Carries the socket's address to the route handlers, which only see a Web `Request`. The entry
 * overwrites it on every request, so it is never the client's word (X-Forwarded-For is).
 */
export const PEER_HEADER = "x-agent-service-peer";

/**
 * The path and query asked for, which Next.js does not tell the dashboard's layout: a page that
 * needs a session sends the user to sign in with it, to come back there.
 */
export const PATH_HEADER = "x-agent-service-path";

/**
 * The dashboard's pages are rendered with Next.js's inline bootstrap scripts, so scripts and
 * styles allow 'unsafe-inline' from this origin only (nonces would make every page dynamic);
 * wallets reach their chains' RPC endpoints over https/wss. Nothing may frame the service.
 * Development adds 'unsafe-eval', which Next.js's dev runtime needs.
 */
function contentSecurityPolicy(development: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'unsafe-inline'${development ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self' https: wss:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** Set on every response: pages, REST, tRPC, Next.js's own redirects and errors, and ours. */
export function securityHeaders(development: boolean): ReadonlyArray<readonly [string, string]> {
  return [
    ["content-security-policy", contentSecurityPolicy(development)],
    ["x-frame-options", "DENY"],
    ["x-content-type-options", "nosniff"],
    ["referrer-policy", "strict-origin-when-cross-origin"],
    ["cross-origin-opener-policy", "same-origin"],
    ["permissions-policy", "camera=(), microphone=(), geolocation=()"],
  ];
}
