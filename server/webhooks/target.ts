import { BlockList, isIP } from "node:net";
import { type HostRule, hostListed } from "@/server/kit/allowed-hosts";

/**
 * Where a webhook may be sent: any public address; a non-public one (cloud metadata, the
 * database, an admin port on localhost) only when WEBHOOK_ALLOWED_HOSTS lists it or the name
 * resolving to it. A name's addresses are checked when resolved for the connection itself
 * (attempt.ts), so a DNS answer cannot point a public name at loopback after the check.
 */

/** Address ranges that are not the public internet (IANA special-purpose registries). */
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24], // documentation
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const)
  NOT_PUBLIC.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["64:ff9b:1::", 48], // local-use NAT64: a local network's IPv4 addresses
  ["100::", 64], // discard
  ["2001:db8::", 32], // documentation
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
] as const)
  NOT_PUBLIC.addSubnet(network, prefix, "ipv6");

/**
 * IPv6 forms that carry an IPv4 address, which decides: mapped (::ffff:a.b.c.d), translated
 * (::ffff:0:a.b.c.d), compatible (::a.b.c.d), NAT64 (64:ff9b::/96), 6to4 (2002::/16) and
 * Teredo (2001::/32, whose client address is stored inverted).
 */
function embeddedIpv4(address: string): string | undefined {
  const groups = expandIpv6(address.toLowerCase());
  if (!groups) return undefined;
  const v4 = (high: number, low: number) => [high >> 8, high & 255, low >> 8, low & 255].join(".");
  const zero = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  const [g0, g1, , , g4, g5, g6 = 0, g7 = 0] = groups;
  if (zero(0, 5) && g5 === 0xffff) return v4(g6, g7);
  if (zero(0, 4) && g4 === 0xffff && g5 === 0) return v4(g6, g7);
  if (zero(0, 6) && (g6 !== 0 || g7 > 1)) return v4(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && zero(2, 6)) return v4(g6, g7);
  if (g0 === 0x2002) return v4(groups[1] as number, groups[2] as number);
  if (g0 === 0x2001 && g1 === 0) return v4(~g6 & 0xffff, ~g7 & 0xffff);
  return undefined;
}

/** An IPv6 address as its eight groups, a dotted IPv4 tail read as the last two. */
function expandIpv6(address: string): number[] | undefined {
  let text = address;
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(2).map(Number) as [number, number, number, number];
    text = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const parse = (part: string) => (part ? part.split(":").map((g) => Number.parseInt(g, 16)) : []);
  const first = parse(head);
  const last = tail === undefined ? [] : parse(tail);
  const missing = 8 - first.length - last.length;
  if (missing < 0 || (tail === undefined && missing !== 0)) return undefined;
  return [...first, ...Array<number>(missing).fill(0), ...last];
}

export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return NOT_PUBLIC.check(address, "ipv4");
  if (family !== 6) return true; // not an address at all: never treated as public
  const v4 = embeddedIpv4(address);
  if (v4 !== undefined) return NOT_PUBLIC.check(v4, "ipv4");
  return NOT_PUBLIC.check(address, "ipv6");
}

export function portOf(url: URL): number {
  return Number(url.port || (url.protocol === "https:" ? 443 : 80));
}

export function literalAddress(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return isIP(host) ? host : undefined;
}

export function addressPermitted(url: URL, address: string, rules: readonly HostRule[]): boolean {
  if (!isNonPublicAddress(address)) return true;
  const port = portOf(url);
  const host = isIP(address) === 6 ? `[${address.toLowerCase()}]` : address;
  return hostListed(url.hostname, port, rules) || hostListed(host, port, rules);
}

export const NOT_LISTED =
  "is on a private, loopback or other non-public address, which WEBHOOK_ALLOWED_HOSTS does not list";

/**
 * The refusal of `url`, with what would allow it: its host (and port) added to the setting,
 * which the service reads when it starts (so a receiver on this machine can be tried without
 * guessing which setting, or that a restart is needed).
 */
export function notListed(url: URL): string {
  return `${NOT_LISTED}; to allow it, add '${url.host}' to that setting (hosts separated by commas) and restart the service`;
}

/**
 * Why an endpoint may not have this URL, judged from the URL alone (its literal address, or
 * `localhost`); undefined when it may. A name's DNS answer is checked when it is sent to.
 */
export function urlProblem(url: URL, rules: readonly HostRule[]): string | undefined {
  const address = literalAddress(url);
  if (address !== undefined)
    return addressPermitted(url, address, rules) ? undefined : notListed(url);
  // Names that are loopback by definition (RFC 6761) are judged now, as their addresses.
  // `localhost.` is `localhost`: the root's dot changes no answer.
  const name = url.hostname.toLowerCase().replace(/\.$/, "");
  if (name !== "localhost" && !name.endsWith(".localhost")) return undefined;
  const port = portOf(url);
  const listed = [name, "127.0.0.1", "[::1]"].some((host) => hostListed(host, port, rules));
  return listed ? undefined : notListed(url);
}
