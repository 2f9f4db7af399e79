import { createHmac, type KeyObject } from "node:crypto";
import { isIP } from "node:net";
import type { Session } from "@/server/auth";
import { PEER_HEADER } from "@/server/instance";
import { type PresentedKey, presentedKey } from "@/server/keys";

/**
 * Who is chatting. Threads and rate limits belong to a caller: an agent key, a client address
 * (anonymous), a signed-in wallet, or the admin. A presented key is only checked against the
 * agent when the chat opens (server/chat/opening.ts), in the same statement that counts it.
 */
export type Caller =
  | { kind: "admin" }
  | { kind: "wallet"; address: string }
  | { kind: "key"; key: PresentedKey }
  | { kind: "anonymous"; addressHash: string };

/**
 * The id a caller's threads and rate-limit windows are stored under: `admin`, `wallet:<0x…>`,
 * `key:<key id>` or `addr:<hash>`. (`agent` and `shared` are taken by the autonomous thread and
 * by threads from before callers; no caller can have them.)
 */
export function callerId(caller: Caller): string {
  switch (caller.kind) {
    case "admin":
      return "admin";
    case "wallet":
      return `wallet:${caller.address}`;
    case "key":
      return `key:${caller.key.id}`;
    case "anonymous":
      return `addr:${caller.addressHash}`;
  }
}

/**
 * The client's address. With `trustProxy` = 0 it is the socket's: X-Forwarded-For is the
 * client's own word. With n trusted proxies in front, it is the address the nth proxy from us
 * saw (X-Forwarded-For read from the right), as Express's `trust proxy` hop count does; a
 * shorter chain gives its leftmost address. Either way normalised (normalizeAddress). Undefined
 * when the request carries no socket address (a process that is not the server entry).
 */
export function clientAddress(headers: Headers, trustProxy: number): string | undefined {
  const peer = headers.get(PEER_HEADER) || undefined;
  if (!peer) return undefined;
  // One caller per address, however it is spelled, on either path (see normalizeAddress).
  const own = normalizeAddress(peer) ?? peer;
  if (trustProxy === 0) return own;
  const forwarded = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((hop) => hop.trim())
    .filter(Boolean);
  const chain = [peer, ...forwarded.reverse()];
  const hop = chain[Math.min(trustProxy, chain.length - 1)] as string;
  return normalizeAddress(hop) ?? own;
}

/**
 * An address as one caller: IPv4 as it is (also when mapped into IPv6, in any spelling), and
 * IPv6 by its /64, the block one subscriber is usually given, so that a script cannot become a
 * new caller by changing the low bits. Brackets, a port and a zone id are dropped. Undefined
 * when it is not an IP address.
 */
export function normalizeAddress(raw: string): string | undefined {
  let address = raw.trim().replace(/^\[|\](:\d+)?$/g, "");
  // "1.2.3.4:5678", as some proxies write it.
  if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(address)) address = address.replace(/:\d+$/, "");
  address = address.replace(/%.*$/, "");
  const version = isIP(address);
  if (version === 4) return address;
  if (version !== 6) return undefined;
  const groups = ipv6Groups(address);
  // ::ffff:a.b.c.d (or ::ffff:0a0b:0c0d): an IPv4 client of a dual-stack socket.
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const [high = 0, low = 0] = groups.slice(6);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(":")}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, an IPv4 tail as two). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", rest] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = rest ? rest.split(":") : [];
  const parts =
    rest === undefined
      ? left
      : [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right];
  return parts.map((part) => Number.parseInt(part, 16));
}

/**
 * The stored form of an address: a keyed hash, never the address itself. Keyed, because the
 * IPv4 space is small enough to hash whole: without the key a leaked hash gives the address.
 */
export function hashAddress(address: string, key: KeyObject): string {
  return createHmac("sha256", key).update(address).digest("hex").slice(0, 16);
}

/**
 * Addresses hashed lately, per key: a client sends many requests, and an HMAC is about 0.1 ms
 * of a chat's CPU. Bounded: emptied when full, so a flood of addresses costs an HMAC each, as
 * before, and never more memory than this.
 */
const HASHED_ADDRESSES_MAX = 10_000;
const hashedAddresses = new WeakMap<KeyObject, Map<string, string>>();

/** The keyed hash that stands for the request's client address (see `clientAddress`). */
export function clientOf(
  headers: Headers,
  { trustProxy, hashKey }: { trustProxy: number; hashKey: KeyObject },
): string {
  const address = clientAddress(headers, trustProxy) ?? "unknown";
  let hashed = hashedAddresses.get(hashKey);
  if (!hashed) {
    hashed = new Map();
    hashedAddresses.set(hashKey, hashed);
  }
  let hash = hashed.get(address);
  if (hash === undefined) {
    if (hashed.size >= HASHED_ADDRESSES_MAX) hashed.clear();
    hash = hashAddress(address, hashKey);
    hashed.set(address, hash);
  }
  return hash;
}

/**
 * The caller of a request: the admin (key or session), a signed-in wallet, an agent key given
 * as the bearer token (well formed or not: `presentedKey`), or else the client (its address's
 * hash, from `clientOf`).
 */
export function callerOf({
  session,
  bearer,
  client,
}: {
  session: Session | null;
  bearer?: string;
  client: string;
}): Caller {
  if (session?.role === "admin") return { kind: "admin" };
  const key = bearer === undefined ? undefined : presentedKey(bearer);
  if (key) return { kind: "key", key };
  if (session) return { kind: "wallet", address: session.address };
  return { kind: "anonymous", addressHash: client };
}
