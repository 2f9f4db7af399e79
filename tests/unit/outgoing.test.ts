import type { LookupAddress } from "node:dns";
import { describe, expect, it, vi } from "vitest";
import { parseAllowedHosts } from "@/server/kit/allowed-hosts";
import {
  guardedLookup,
  isMetadataAddress,
  isNonPublicAddress,
  resolvedProblem,
  urlProblem,
} from "@/server/kit/outgoing";

/** Names answered here rather than by DNS, so a name can resolve to the metadata address. */
const ANSWERS: Record<string, LookupAddress[]> = {
  "metadata.test": [{ address: "169.254.169.254", family: 4 }],
  "metadata6.test": [{ address: "fd00:ec2::254", family: 6 }],
  "inside.test": [{ address: "10.0.0.5", family: 4 }],
  "mixed.test": [
    { address: "169.254.169.254", family: 4 },
    { address: "10.0.0.5", family: 4 },
    { address: "93.184.216.34", family: 4 },
  ],
};
vi.mock("node:dns", async (importOriginal) => {
  const dns = await importOriginal<typeof import("node:dns")>();
  const lookup = (
    hostname: string,
    options: object,
    callback: (error: Error | null, addresses: LookupAddress[]) => void,
  ) => {
    const answer = ANSWERS[hostname];
    if (answer) queueMicrotask(() => callback(null, answer));
    else dns.lookup(hostname, { ...options, all: true }, callback);
  };
  return { ...dns, default: { ...dns, lookup }, lookup };
});

const rules = (list: string) => parseAllowedHosts(list).rules;
const problem = (url: string, list = "") =>
  urlProblem(new URL(url), rules(list), "MCP_ALLOWED_HOSTS");

/** What guardedLookup answers for `url`'s host: the addresses, or the refusal's sentence. */
function resolve(url: string, list = ""): Promise<string[] | string> {
  const target = new URL(url);
  return new Promise((done, fail) =>
    guardedLookup(target, rules(list))(target.hostname, { all: true }, (error, addresses) => {
      if (!error) return done((addresses as unknown as LookupAddress[]).map((a) => a.address));
      const refused = resolvedProblem(error, "MCP_ALLOWED_HOSTS");
      if (refused) done(refused);
      else fail(error);
    }),
  );
}

const METADATA = "is on a cloud metadata address, which is never allowed, listed or not";
const NOT_LISTED = (host: string) =>
  `is on a private, loopback or other non-public address, which MCP_ALLOWED_HOSTS does not list; to allow it, add '${host}' to that setting (hosts separated by commas) and restart the service`;

describe("the outgoing rule", () => {
  it("tells public addresses from private, loopback and other special ones", () => {
    for (const address of [
      "127.0.0.1",
      "127.255.0.9",
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "::1",
      "::",
      "fe80::1",
      "fd00::5",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:a9fe:a9fe",
      "64:ff9b::a00:1",
      "2002:7f00:1::",
      // IPv4-compatible, IPv4-translated, local-use NAT64 and Teredo forms.
      "::127.0.0.1",
      "::a9fe:a9fe",
      "::ffff:0:127.0.0.1",
      "::ffff:0:a00:1",
      "64:ff9b:1::a00:1",
      "64:ff9b:1:7f00:1::",
      "2001:0:4136:e378:8000:63bf:80ff:fffe",
      "not an address",
    ])
      expect(isNonPublicAddress(address), address).toBe(true);
    for (const address of [
      "93.184.216.34",
      "8.8.8.8",
      "172.32.0.1",
      "100.128.0.1",
      "2606:4700::1111",
      "::ffff:8.8.8.8",
      "2002:808:808::",
      "::ffff:0:8.8.8.8",
      "::8.8.8.8",
      "2001:0:4136:e378:8000:63bf:f7f7:f7f7",
    ])
      expect(isNonPublicAddress(address), address).toBe(false);
  });

  it("knows the cloud metadata addresses in every IPv6 form that carries them", () => {
    for (const address of [
      "169.254.169.254",
      "169.254.170.2",
      "169.254.170.23",
      "100.100.100.200",
      "168.63.129.16",
      "192.0.0.192",
      "fd00:ec2::254",
      "FD00:EC2:0:0:0:0:0:254",
      "fd00:ec2::23",
      "fe80::a9fe:a9fe",
      "::ffff:169.254.169.254",
      "::ffff:a9fe:a9fe",
      "::ffff:0:a9fe:a9fe",
      "::a9fe:a9fe",
      "64:ff9b::a9fe:a9fe",
      "2002:a9fe:a9fe::",
    ])
      expect(isMetadataAddress(address), address).toBe(true);
    for (const address of ["169.254.169.253", "10.0.0.1", "fd00:ec2::253", "8.8.8.8", "x"])
      expect(isMetadataAddress(address), address).toBe(false);
  });

  it("refuses a metadata address in the URL however spelled, and even when listed", () => {
    for (const url of [
      "http://169.254.169.254/latest/meta-data/",
      "http://2852039166/",
      "http://0xa9.254.169.254/",
      "http://[::ffff:169.254.169.254]/",
      "http://[::ffff:a9fe:a9fe]:8080/mcp",
      "http://[64:ff9b::a9fe:a9fe]/",
      "http://[fd00:ec2::254]/",
      "http://100.100.100.200/",
    ])
      expect(
        problem(url, "169.254.169.254,[fd00:ec2::254],[::ffff:a9fe:a9fe],100.100.100.200"),
        url,
      ).toBe(METADATA);
  });

  it("takes public addresses and names, and non-public ones only when listed", () => {
    expect(problem("https://mcp.example.com/mcp")).toBeUndefined();
    expect(problem("http://93.184.216.34/")).toBeUndefined();
    // A name is judged when it is resolved, not from the URL.
    expect(problem("http://inside.test/")).toBeUndefined();
    expect(problem("http://127.0.0.1:8000/mcp")).toBe(NOT_LISTED("127.0.0.1:8000"));
    expect(problem("http://[::1]/mcp")).toBe(NOT_LISTED("[::1]"));
    expect(problem("http://localhost:8000/mcp")).toBe(NOT_LISTED("localhost:8000"));
    expect(problem("http://10.0.0.7:8080/mcp", "10.0.0.7:8080")).toBeUndefined();
    expect(problem("http://10.0.0.7:8081/mcp", "10.0.0.7:8080")).toBe(NOT_LISTED("10.0.0.7:8081"));
    expect(problem("http://localhost:8000/mcp", "127.0.0.1")).toBeUndefined();
    expect(problem("http://2130706433:8000/mcp", "127.0.0.1")).toBeUndefined();
  });

  it("answers only the permitted addresses when connecting; a metadata one never", async () => {
    expect(await resolve("http://metadata.test/")).toBe(
      "resolves to a cloud metadata address, which is never allowed, listed or not",
    );
    expect(await resolve("http://metadata.test/", "metadata.test,169.254.169.254")).toBe(
      "resolves to a cloud metadata address, which is never allowed, listed or not",
    );
    expect(await resolve("http://metadata6.test/", "metadata6.test")).toMatch(/cloud metadata/);
    expect(await resolve("http://inside.test/")).toBe(
      "resolves to a private, loopback or other non-public address, which MCP_ALLOWED_HOSTS does not list",
    );
    expect(await resolve("http://inside.test/", "inside.test")).toEqual(["10.0.0.5"]);
    expect(await resolve("http://inside.test:81/", "10.0.0.5:81")).toEqual(["10.0.0.5"]);
    expect(await resolve("http://mixed.test/")).toEqual(["93.184.216.34"]);
    expect(await resolve("http://mixed.test/", "mixed.test")).toEqual([
      "10.0.0.5",
      "93.184.216.34",
    ]);
  });
});
