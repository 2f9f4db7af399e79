import { describe, expect, it } from "vitest";
import { clientAddress, normalizeAddress } from "@/server/callers";
import { PEER_HEADER } from "@/server/instance";

/**
 * One caller per address, however it is spelled, whether the address comes from the socket
 * (TRUST_PROXY=0, the default) or from X-Forwarded-For (TRUST_PROXY=n): rate limits, nonce
 * limits, the admin-key throttle and anonymous threads all count by it.
 */

describe("normalizeAddress", () => {
  it.each([
    ["203.0.113.7", "203.0.113.7"],
    ["203.0.113.7:51234", "203.0.113.7"],
    [" 203.0.113.7 ", "203.0.113.7"],
    ["::ffff:203.0.113.7", "203.0.113.7"],
    ["::FFFF:203.0.113.7", "203.0.113.7"],
    ["[::ffff:203.0.113.7]:443", "203.0.113.7"],
    ["::ffff:cb00:7107", "203.0.113.7"],
    ["0:0:0:0:0:ffff:cb00:7107", "203.0.113.7"],
    ["0000:0000:0000:0000:0000:ffff:203.0.113.7", "203.0.113.7"],
  ])("folds %s to IPv4 %s", (raw, expected) => {
    expect(normalizeAddress(raw)).toBe(expected);
  });

  const block = "2001:db8:85a3:8d3::/64";
  it.each([
    "2001:db8:85a3:8d3::1",
    "2001:db8:85a3:8d3:ffff:ffff:ffff:ffff",
    "2001:0db8:85a3:08d3:0000:0000:0000:0001",
    "2001:DB8:85A3:8D3::abcd",
    "[2001:db8:85a3:8d3::1]",
    "[2001:db8:85a3:8d3::1]:8443",
    "2001:db8:85a3:8d3::1%eth0",
    "2001:db8:85a3:8d3:1:2:192.0.2.1",
  ])("groups %s into its /64", (raw) => {
    expect(normalizeAddress(raw)).toBe(block);
  });

  it("keeps different /64s apart, and compressed zeros in place", () => {
    expect(normalizeAddress("2001:db8:85a3:8d4::1")).toBe("2001:db8:85a3:8d4::/64");
    expect(normalizeAddress("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(normalizeAddress("::1")).toBe("0:0:0:0::/64");
    expect(normalizeAddress("fe80::1")).toBe("fe80:0:0:0::/64");
    // NAT64's well-known prefix is an IPv6 block like any other, not an IPv4 address.
    expect(normalizeAddress("64:ff9b::203.0.113.7")).toBe("64:ff9b:0:0::/64");
  });

  it.each(["", "unknown", "203.0.113", "300.1.1.1", "2001:db8::g", "::ffff:999.0.0.1"])(
    "says %j is no address",
    (raw) => {
      expect(normalizeAddress(raw)).toBeUndefined();
    },
  );
});

describe("clientAddress", () => {
  const headers = (peer: string, forwarded?: string) =>
    new Headers({ [PEER_HEADER]: peer, ...(forwarded ? { "x-forwarded-for": forwarded } : {}) });

  it("normalises the socket's address when no proxy is trusted", () => {
    // Two addresses of one /64: one caller, as through a trusted proxy.
    expect(clientAddress(headers("2001:db8:85a3:8d3::1"), 0)).toBe("2001:db8:85a3:8d3::/64");
    expect(clientAddress(headers("2001:db8:85a3:8d3::2"), 0)).toBe("2001:db8:85a3:8d3::/64");
    // An IPv4 client of a dual-stack socket is the same caller as on an IPv4 socket.
    expect(clientAddress(headers("::ffff:198.51.100.4"), 0)).toBe("198.51.100.4");
    expect(clientAddress(headers("198.51.100.4"), 0)).toBe("198.51.100.4");
    // X-Forwarded-For is the client's own word when no proxy is trusted.
    expect(clientAddress(headers("198.51.100.4", "192.0.2.1"), 0)).toBe("198.51.100.4");
  });

  it("normalises the forwarded address the trusted proxy saw, and falls back to the socket's", () => {
    expect(clientAddress(headers("10.0.0.2", "192.0.2.1, 2001:db8:1:2::99"), 1)).toBe(
      "2001:db8:1:2::/64",
    );
    expect(clientAddress(headers("10.0.0.2", "::ffff:192.0.2.1"), 1)).toBe("192.0.2.1");
    // A hop that is no address: the socket's (normalised), not the junk.
    expect(clientAddress(headers("::ffff:10.0.0.2", "not-an-address"), 1)).toBe("10.0.0.2");
  });

  it("says nothing when the request carries no socket address", () => {
    expect(clientAddress(new Headers(), 0)).toBeUndefined();
  });
});
