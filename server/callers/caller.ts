import { createHmac, type KeyObject } from "node:crypto";
import { isIP } from "node:net";
import { roleAtLeast } from "@/server/admins";
import { type PresentedKey, presentedKey } from "@/server/agent-keys";
import type { Session } from "@/server/auth";
import { PEER_HEADER } from "@/server/instance";

/**
 * Who is chatting: threads and rate limits belong to a caller. A presented agent key is checked
 * against the agent only when the chat opens, in the statement that counts it (chat/opening.ts).
 */
export type Caller =
  | { kind: "admin" }
  | { kind: "wallet"; address: string }
  | { kind: "key"; key: PresentedKey }
  | { kind: "anonymous"; addressHash: string };

/**
 * The id a caller's threads and rate-limit windows are stored under. `agent` and `shared` are
 * taken by the autonomous thread and older shared threads, so no caller may have them.
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
 * Whose a thing kept for a caller is (an idempotent answer, a cancel): an agent key counts with
 * its secret's hash, so that one who knows only a key's id (it is in the key) gets nothing.
 */
export function callerScope(caller: Caller): string {
  return caller.kind === "key" ? `${callerId(caller)}:${caller.key.secretHash}` : callerId(caller);
}

/**
 * The client's address: the socket's when no proxy is trusted (X-Forwarded-For is the client's
 * own word), else the address the nth trusted proxy saw, as Express's hop count reads it.
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
 * An address as one caller: IPv4 as it is (also IPv4-mapped), IPv6 by its /64, the block one
 * subscriber is usually given, so a script cannot become a new caller by changing the low bits.
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

/** A keyed hash: IPv4 is small enough to hash whole, so an unkeyed hash would give the address. */
export function hashAddress(address: string, key: KeyObject): string {
  return createHmac("sha256", key).update(address).digest("hex").slice(0, 16);
}

// Addresses hashed lately, per hashing key, as a client sends many requests. Emptied when full,
// so that a flood of addresses costs an HMAC each and never more memory than this.
const HASHED_ADDRESSES_MAX = 10_000;
const hashedAddresses = new WeakMap<KeyObject, Map<string, string>>();

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

export function callerOf({
  session,
  bearer,
  client,
}: {
  session: Session | null;
  bearer?: string;
  client: string;
}): Caller {
  // A viewer writes nothing: it chats as the client it is, not as the admin.
  if (session && roleAtLeast(session.role, "operator")) return { kind: "admin" };
  const key = bearer === undefined ? undefined : presentedKey(bearer);
  if (key) return { kind: "key", key };
  if (session?.via === "wallet") return { kind: "wallet", address: session.address };
  return { kind: "anonymous", addressHash: client };
}
