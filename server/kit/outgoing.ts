import { type LookupAddress, lookup } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { type HostRule, hostListed } from "@/server/kit/allowed-hosts";

/**
 * The one rule for requests the service makes where a user says (agents' MCP servers, webhook
 * endpoints): any public address; a non-public one (the database, an admin port on localhost)
 * only when the setting of that kind lists it or the name resolving to it; a cloud metadata
 * address never. A name's addresses are judged when resolved for the connection itself
 * (`guardedLookup`), so a DNS answer cannot point a public name inside after the URL's check.
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
 * Cloud services that hand a machine's credentials to whoever on it asks, which no setting may
 * open: instance metadata (169.254.169.254 on AWS, Google Cloud, Azure, Oracle, OpenStack and
 * others; AWS's fd00:ec2::254; OpenStack's fe80::a9fe:a9fe; Oracle Cloud Classic's
 * 192.0.0.192; Alibaba Cloud's 100.100.100.200), AWS's container credentials (169.254.170.2),
 * EKS Pod Identity (169.254.170.23, fd00:ec2::23), and Azure's host endpoint (168.63.129.16,
 * public space but reachable only from inside Azure).
 */
const METADATA = new BlockList();
for (const address of [
  "169.254.169.254",
  "169.254.170.2",
  "169.254.170.23",
  "192.0.0.192",
  "100.100.100.200",
  "168.63.129.16",
])
  METADATA.addAddress(address, "ipv4");
for (const address of ["fd00:ec2::254", "fd00:ec2::23", "fe80::a9fe:a9fe"])
  METADATA.addAddress(address, "ipv6");

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

/** Whether `address` is in `list`, an IPv6 form carrying an IPv4 address judged as that. */
function inList(list: BlockList, address: string): boolean | undefined {
  const family = isIP(address);
  if (family === 4) return list.check(address, "ipv4");
  if (family !== 6) return undefined;
  const v4 = embeddedIpv4(address);
  return v4 !== undefined ? list.check(v4, "ipv4") : list.check(address, "ipv6");
}

export function isNonPublicAddress(address: string): boolean {
  // Not an address at all: never treated as public.
  return inList(NOT_PUBLIC, address) ?? true;
}

export function isMetadataAddress(address: string): boolean {
  return inList(METADATA, address) ?? false;
}

export function portOf(url: URL): number {
  return Number(url.port || (url.protocol === "https:" ? 443 : 80));
}

export function literalAddress(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return isIP(host) ? host : undefined;
}

/** Whether a request to `url` may connect to `address`, under the setting's `rules`. */
export function addressPermitted(url: URL, address: string, rules: readonly HostRule[]): boolean {
  if (isMetadataAddress(address)) return false;
  if (!isNonPublicAddress(address)) return true;
  const port = portOf(url);
  const host = isIP(address) === 6 ? `[${address.toLowerCase()}]` : address;
  return hostListed(url.hostname, port, rules) || hostListed(host, port, rules);
}

const METADATA_PROBLEM = "a cloud metadata address, which is never allowed, listed or not";

/**
 * Why a request may not go to `url`, judged from the URL alone (its literal address, or a
 * `localhost` name), with what would allow it (the setting is read when the service starts);
 * undefined when it may. A name's DNS answer is judged when connecting (`guardedLookup`).
 */
export function urlProblem(
  url: URL,
  rules: readonly HostRule[],
  setting: string,
): string | undefined {
  const notListed = `is on a private, loopback or other non-public address, which ${setting} does not list; to allow it, add '${url.host}' to that setting (hosts separated by commas) and restart the service`;
  const address = literalAddress(url);
  if (address !== undefined) {
    if (isMetadataAddress(address)) return `is on ${METADATA_PROBLEM}`;
    return addressPermitted(url, address, rules) ? undefined : notListed;
  }
  // Names that are loopback by definition (RFC 6761) are judged now, as their addresses.
  // `localhost.` is `localhost`: the root's dot changes no answer.
  const name = url.hostname.toLowerCase().replace(/\.$/, "");
  if (name !== "localhost" && !name.endsWith(".localhost")) return undefined;
  const port = portOf(url);
  const listed = [name, "127.0.0.1", "[::1]"].some((host) => hostListed(host, port, rules));
  return listed ? undefined : notListed;
}

/** Told apart by its code, not `instanceof`: the build may load this module more than once. */
const REFUSED_CODE = "EOUTGOINGREFUSED";

class AddressRefused extends Error {
  readonly code = REFUSED_CODE;
  constructor(readonly metadata: boolean) {
    super("The host resolves to no address the outgoing rule permits.");
  }
}

/**
 * A connection's DNS lookup, answering only the addresses `rules` permit for `url`; none
 * permitted fails the connection, which `resolvedProblem` then describes.
 */
export function guardedLookup(url: URL, rules: readonly HostRule[]): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, "", 0);
      const permitted = addresses.filter(({ address }) => addressPermitted(url, address, rules));
      const first = permitted[0];
      if (!first) {
        // Listing the host would help unless every address is one no listing opens.
        const metadata = addresses.every(({ address }) => isMetadataAddress(address));
        return callback(new AddressRefused(metadata), "", 0);
      }
      if (options.all) (callback as (e: null, a: LookupAddress[]) => void)(null, permitted);
      else callback(null, first.address, first.family);
    });
  };
}

/**
 * What `guardedLookup` refused, to follow "its host" (the error itself, or the cause of fetch's
 * "fetch failed"); undefined for any other error.
 */
export function resolvedProblem(error: unknown, setting: string): string | undefined {
  const refused = [error, (error as { cause?: unknown } | null)?.cause].find(
    (candidate) => (candidate as { code?: unknown } | null)?.code === REFUSED_CODE,
  ) as AddressRefused | undefined;
  if (!refused) return undefined;
  return refused.metadata
    ? `resolves to ${METADATA_PROBLEM}`
    : `resolves to a private, loopback or other non-public address, which ${setting} does not list`;
}
