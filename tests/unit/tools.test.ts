import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "@/server/frame/config";
import { hostListed, parseAllowedHosts } from "@/server/kit/allowed-hosts";
import { portOf } from "@/server/kit/outgoing";
import {
  capText,
  decryptHeader,
  encryptHeader,
  headerSecretKey,
  resultText,
  secretHint,
} from "@/server/tools";

const allowed = (rules: string, url: string) => {
  const at = new URL(url);
  return hostListed(at.hostname, portOf(at), parseAllowedHosts(rules).rules);
};

describe("MCP_ALLOWED_HOSTS", () => {
  it("lists no host when empty", () => {
    expect(allowed("", "http://10.0.0.1/mcp")).toBe(false);
  });

  it("matches names exactly, wildcards on subdomains only, and ports when given", () => {
    const rules = "mcp.example.com, *.tools.example.org, 127.0.0.1:8080, [::1]";
    expect(allowed(rules, "https://mcp.example.com/mcp")).toBe(true);
    expect(allowed(rules, "https://MCP.Example.com:8443/mcp")).toBe(true);
    expect(allowed(rules, "https://evil-mcp.example.com/mcp")).toBe(false);
    expect(allowed(rules, "https://mcp.example.com.evil.net/mcp")).toBe(false);
    expect(allowed(rules, "https://a.tools.example.org/mcp")).toBe(true);
    expect(allowed(rules, "https://tools.example.org/mcp")).toBe(false);
    expect(allowed(rules, "http://127.0.0.1:8080/mcp")).toBe(true);
    expect(allowed(rules, "http://127.0.0.1:8081/mcp")).toBe(false);
    // Other spellings of a permitted address are the same host to the URL parser.
    expect(allowed(rules, "http://2130706433:8080/mcp")).toBe(true);
    expect(allowed(rules, "http://[::1]:3000/mcp")).toBe(true);
    expect(allowed(rules, "http://localhost:8080/mcp")).toBe(false);
  });

  it("stops the service at start-up with an entry that is not a host", () => {
    expect(() => parseConfig({ MCP_ALLOWED_HOSTS: "ok.example.com, http://x/y" })).toThrow(
      ConfigError,
    );
    expect(parseAllowedHosts("a/b, *.[::1]").problems).toHaveLength(2);
  });
});

describe("header secrets", () => {
  const key = headerSecretKey("an-admin-key-of-some-length");
  const where = { origin: "https://mcp.example.com", header: "Authorization" };

  it("decrypt only with the same key, origin and header name", () => {
    const sealed = encryptHeader(key, "Bearer abc", where);
    expect(sealed).not.toContain("abc");
    expect(decryptHeader(key, sealed, where)).toBe("Bearer abc");
    expect(decryptHeader(key, sealed, { ...where, header: "authorization" })).toBe("Bearer abc");
    expect(
      decryptHeader(key, sealed, { ...where, origin: "https://evil.example" }),
    ).toBeUndefined();
    expect(decryptHeader(key, sealed, { ...where, header: "X-Other" })).toBeUndefined();
    expect(decryptHeader(headerSecretKey("another-admin-key"), sealed, where)).toBeUndefined();
    // One character of the tag changed for another (its last characters may hold unused bits,
    // and a random tag that already ended in the replacement passed once in 4,096 runs).
    const at = sealed.length - 8;
    const damaged = `${sealed.slice(0, at)}${sealed[at] === "A" ? "B" : "A"}${sealed.slice(at + 1)}`;
    expect(decryptHeader(key, damaged, where)).toBeUndefined();
  });

  it("show at most the last four characters of a long secret", () => {
    expect(secretHint("short-secret")).toBeNull();
    expect(secretHint("sk-0123456789abcdefghij")).toBe("…ghij");
  });
});

describe("tool results", () => {
  it("are text for the model: placeholders for images, structured content when there is no text", () => {
    expect(
      resultText(
        {
          content: [
            { type: "text", text: "one" },
            { type: "image", data: "aGVsbG8=", mimeType: "image/png" },
          ],
        },
        100,
      ),
    ).toEqual({ text: "one\n[image image/png, 8 base64 characters, not shown]", isError: false });
    expect(resultText({ content: [], structuredContent: { n: 1 }, isError: true }, 100)).toEqual({
      text: '{"n":1}',
      isError: true,
    });
    expect(capText("abcdef", 3)).toBe("abc\n[cut: 6 characters, the first 3 shown]");
  });
});
