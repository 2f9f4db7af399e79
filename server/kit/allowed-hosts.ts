import { isIP } from "node:net";

/**
 * An allowed-hosts list: `mcp.example.com`, `*.example.com` (subdomains only) or an IP address
 * (IPv6 in brackets before a port), each optionally with `:port`. Imports nothing of the service:
 * the configuration reads it, and the server entry loads that unbundled.
 *
 * MCP_ALLOWED_HOSTS and WEBHOOK_ALLOWED_HOSTS list the non-public addresses, or names resolving
 * to them, that their kind of request may also reach; public addresses need no listing
 * (server/kit/outgoing.ts applies the rule).
 */
export type HostRule = { host: string; wildcard: boolean; port: number | undefined };

export function parseAllowedHosts(value: string): { rules: HostRule[]; problems: string[] } {
  const rules: HostRule[] = [];
  const problems: string[] = [];
  for (const entry of value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean)) {
    const rule = parseEntry(entry);
    if (rule) rules.push(rule);
    else
      problems.push(
        `'${entry}' is not a host name, *.domain, or IP address (with an optional :port)`,
      );
  }
  return { rules, problems };
}

function parseEntry(entry: string): HostRule | undefined {
  const lower = entry.toLowerCase();
  const wildcard = lower.startsWith("*.");
  const bare = wildcard ? lower.slice(2) : lower;
  // A bare IPv6 address has colons of its own: no port can follow it.
  if (!wildcard && isIP(bare) === 6) return { host: `[${bare}]`, wildcard: false, port: undefined };
  // As a URL would have it: the host normalised (IDN to punycode, IPv4 forms, IPv6 brackets).
  let url: URL;
  try {
    url = new URL(`http://${bare}/`);
  } catch {
    return undefined;
  }
  if (url.username || url.password || url.pathname !== "/" || url.search || url.hash)
    return undefined;
  const port = /:(\d+)$/.exec(bare)?.[1];
  if (wildcard && url.hostname.startsWith("[")) return undefined;
  return { host: url.hostname, wildcard, port: port === undefined ? undefined : Number(port) };
}

/** Whether a rule names `host` (as a URL's hostname has it) on `port`; no rules name nothing. */
export function hostListed(host: string, port: number, rules: readonly HostRule[]): boolean {
  const name = host.toLowerCase();
  return rules.some(
    (rule) =>
      (rule.port === undefined || rule.port === port) &&
      (rule.wildcard ? name.endsWith(`.${rule.host}`) : name === rule.host),
  );
}
