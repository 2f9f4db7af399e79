import { ResourceUnavailableRpcError, SwitchChainError, UserRejectedRequestError } from "viem";
import { describe, expect, it } from "vitest";
import { ProviderNotFoundError, SwitchChainNotSupportedError } from "wagmi";
import {
  formatAbsolute,
  formatDateTime,
  formatRelative,
  localInstants,
} from "@/components/ui/dates";
import { fieldLabel, formatPercent, formWords, plural, shortAddress } from "@/components/ui/format";
import { readJsonObject } from "@/components/ui/json-text";
import { FormProblem, problemOf, serverWords, UNREACHABLE } from "@/components/ui/problem";
import { walletErrorSentence } from "@/components/wallet/wallet-errors";
import { agentInputSchema } from "@/server/agents";

/** What the dashboard says: times, counts, the server's rules in a form, libraries' errors. */

describe("times", () => {
  const now = Date.parse("2026-11-24T12:00:00Z");
  it("says how long ago or until, in the largest unit that fits", () => {
    expect(formatRelative("2026-11-24T11:59:40Z", now)).toBe("just now");
    expect(formatRelative("2026-11-24T11:55:00Z", now)).toBe("5 minutes ago");
    expect(formatRelative("2026-11-24T15:00:00Z", now)).toBe("in 3 hours");
    expect(formatRelative("2026-11-23T12:00:00Z", now)).toBe("yesterday");
    expect(formatRelative("2026-12-01T00:00:00Z", now)).toBe("in 7 days");
    expect(formatRelative("2025-11-01T00:00:00Z", now)).toBe("last year");
  });

  it("gives the exact time as an ISO date, a 24-hour clock and the zone once", () => {
    expect(formatAbsolute("2026-11-24T12:00:00Z", "UTC")).toBe("2026-11-24 12:00:00 UTC");
    expect(formatAbsolute("2026-11-24T00:05:49Z", "Asia/Tokyo")).toBe(
      "2026-11-24 09:05:49 GMT+9 (Asia/Tokyo)",
    );
    // Midnight is 00, not 24 or 12 AM.
    expect(formatDateTime("2026-11-24T23:00:00Z", "Europe/Berlin")).toBe(
      "2026-11-25 00:00 GMT+1 (Europe/Berlin)",
    );
  });

  it("says the instants in a sentence of the service's in the reader's time", () => {
    const sentence =
      "Daily message limit reached for agent 'a': 1 message allowed, it resets at 2026-11-25T00:00:00Z.";
    expect(localInstants(sentence, now, "Asia/Tokyo")).toBe(
      "Daily message limit reached for agent 'a': 1 message allowed, it resets at 2026-11-25 09:00 GMT+9 (Asia/Tokyo), in 12 hours.",
    );
  });
});

describe("counts and addresses", () => {
  it("writes counts, shares and addresses for people", () => {
    expect(plural(1, "agent")).toBe("1 agent");
    expect(plural(1204, "agent")).toBe("1,204 agents");
    expect(formatPercent(0.835)).toBe("83%");
    expect(formatPercent(0.001)).toBe("<1%");
    expect(formatPercent(1)).toBe("100%");
    expect(shortAddress("0x5B38Da6a701c568545dCfcB03FcB875f56beddC4")).toBe("0x5B38…ddC4");
  });
});

describe("the server's rules in a form", () => {
  it("says empty where the API says null", () => {
    const issues = agentInputSchema.safeParse({
      aid: "a-b",
      temperature: 7,
      quota: { message_limit_daily: -1 },
    }).error?.issues;
    const words = (issues ?? []).map((issue) => formWords(issue.message));
    expect(words).toEqual([
      "must be a number from 0 to 2, or left empty",
      "must be a whole number from 0 to 2,147,483,647, or left empty for no limit",
    ]);
    expect(words.join(" ")).not.toMatch(/null/);
  });

  it("names a limit's maximum for a number too large to hold", () => {
    const issues = agentInputSchema.safeParse({
      aid: "a-b",
      // A 20-digit number, as typed in a form (past what a JS number holds exactly).
      quota: { message_limit_daily: Number("12345678901234567890"), token_limit_daily: 2 ** 60 },
    }).error?.issues;
    expect((issues ?? []).map((issue) => formWords(issue.message))).toEqual([
      "must be a whole number from 0 to 2,147,483,647, or left empty for no limit",
      "must be a whole number of tokens from 0 to 9,007,199,254,740,991, or left empty for no limit",
    ]);
  });

  it("calls fields by the page's words, not the API's names", () => {
    expect(formWords("is required when autonomous_enabled is true")).toBe(
      "is required when “Run on a schedule” is ticked",
    );
    expect(
      formWords(
        "The request has invalid fields: user_address must be a 0x-prefixed Ethereum address.",
      ),
    ).toBe(
      "The request has invalid fields: the owner address must be a 0x-prefixed Ethereum address.",
    );
    expect(formWords("A deployment with request_id 'r-1' exists already.")).toBe(
      "A deployment with the request ID 'r-1' exists already.",
    );
  });
});

/** API words no sentence of the dashboard's should show: a field path, a name, a method and body. */
const API_WORDS = [
  /\b[a-z]+_[a-z_]+\.\d+\b/,
  /\b(mcp_servers|expires_at|max_tool_steps|deployment_details)\b/,
  /\b(GET|POST|PUT|PATCH|DELETE) [/{]/,
  /\{"enabled"/,
  /\bPATCH\b/,
];

describe("the service's sentences in the admin's words", () => {
  it("names an MCP server's field by its number and label, not by the API's path", () => {
    const said = formWords(
      "The request has invalid fields: mcp_servers.0.name must be a name of 1 to 32 letters; mcp_servers.1.headers.X-Api-Key names MCP_TOKEN, which is not set on this server; mcp_servers.2.url is on a private, loopback or other non-public address, which MCP_ALLOWED_HOSTS does not list; mcp_servers.3.allowed_tools.0 a tool name is 1 to 128 characters; mcp_servers names a server twice.",
    );
    expect(said).toBe(
      "The request has invalid fields: MCP server 1's name must be a name of 1 to 32 letters; MCP server 2's header X-Api-Key names MCP_TOKEN, which is not set on this server; MCP server 3's URL is on a private, loopback or other non-public address, which MCP_ALLOWED_HOSTS does not list; MCP server 4's tools the agent may call a tool name is 1 to 128 characters; the MCP servers names a server twice.",
    );
    for (const word of API_WORDS) expect(said).not.toMatch(word);
  });

  it("names the fields of keys, limits and webhooks as their forms do", () => {
    expect(
      formWords(
        "The request has invalid fields: expires_at must lie ahead; a key that never works is no key.",
      ),
    ).toBe(
      "The request has invalid fields: the “Works until” day must lie ahead; a key that never works is no key.",
    );
    expect(formWords("The request has invalid fields: quota.message_limit_daily must be…")).toBe(
      "The request has invalid fields: the limit “Messages per day” must be…",
    );
    expect(
      formWords("The request has invalid fields: url is on a loopback address; events is empty."),
    ).toBe(
      "The request has invalid fields: the URL is on a loopback address; the events is empty.",
    );
    // Outside the sentence that names invalid fields, common words are left alone.
    expect(formWords("Events are sent to the url given.")).toBe(
      "Events are sent to the url given.",
    );
    expect(fieldLabel("mcp_servers.0.url")).toBe("MCP server 1's URL");
    expect(fieldLabel("max_tool_steps")).toBe("the model turns that may call tools");
    expect(fieldLabel("body")).toBeUndefined();
  });

  it("says how to enable a disabled endpoint with the page's button, in the reader's time", () => {
    const now = Date.parse("2026-11-24T12:00:00Z");
    const reasons = [
      'Disabled by an admin at 2026-11-24T11:00:00.000Z; PATCH {"enabled": true} starts deliveries again.',
      'Disabled at 2026-11-24T11:00:00.000Z: every delivery failed for the whole retry window (24 hours); the last attempt: HTTP 500. PATCH {"enabled": true} starts deliveries again.',
      `Webhook endpoint 'wh_1' is disabled; enable it first (PATCH with {"enabled": true}).`,
    ].map((reason) => serverWords(reason, now));
    expect(reasons[0]).toMatch(
      /^Disabled by an admin at 2026-11-24 \d\d:00 .*; “Enable” starts deliveries again\.$/,
    );
    expect(reasons[1]).toMatch(/the last attempt: HTTP 500\. “Enable” starts deliveries again\.$/);
    expect(reasons[2]).toBe(
      "Webhook endpoint 'wh_1' is disabled; enable it first with “Enable” on its page.",
    );
    for (const reason of reasons) for (const word of API_WORDS) expect(reason).not.toMatch(word);
  });
});

describe("failures", () => {
  it("says the service cannot be reached when no answer came", () => {
    expect(problemOf(new TypeError("Failed to fetch"))).toMatchObject({
      detail: UNREACHABLE,
      unreachable: true,
    });
    expect(
      problemOf({
        data: {
          httpStatus: 404,
          problem: { detail: "Agent 'x' not found.", code: "agent_not_found", status: 404 },
        },
      }),
    ).toMatchObject({ detail: "Agent 'x' not found.", status: 404, unreachable: false });
  });

  it("shows a problem found before sending as it is, never as a network failure", () => {
    expect(problemOf(new FormProblem("The details are not valid JSON."))).toEqual({
      detail: "The details are not valid JSON.",
      unreachable: false,
    });
  });

  it("says where typed JSON is invalid, and that it must be an object", () => {
    const problem = (text: string) => {
      const read = readJsonObject(text);
      return read.ok ? undefined : read.problem;
    };
    expect(readJsonObject("  ")).toEqual({ ok: true, value: undefined });
    expect(readJsonObject('{"endpoint": "https://x", "n": [1, -2.5e3, true, null]}')).toEqual({
      ok: true,
      value: { endpoint: "https://x", n: [1, -2500, true, null] },
    });
    expect(problem('{"endpoint": https://x}')).toBe(
      'is not valid JSON: unexpected “h” at character 14: text must be in "double quotes".',
    );
    expect(problem('{"a": 1,\n "b": }')).toBe(
      "is not valid JSON: unexpected “}” at character 16 (line 2, column 7).",
    );
    expect(problem('{"a": [1, 2')).toBe(
      "is not valid JSON: it ends before every brace, bracket and quote is closed.",
    );
    expect(problem("{'a': 1}")).toMatch(/unexpected “'” at character 2/);
    expect(problem('{"a": 1} x')).toMatch(/unexpected “x” at character 10/);
    expect(problem("[1, 2]")).toMatch(/^must be a JSON object in braces, .* not a list\.$/);
    expect(problem('"text"')).toMatch(/not a string\.$/);
    // Whatever JSON.parse refuses, the scan refuses too (and says where).
    for (const text of ['{"a":01}', '{"a":"\\x"}', '{"a":1,}', "[1 2]", '{"a":"\u0001"}', "-"]) {
      expect(() => JSON.parse(text), text).toThrow();
      expect(problem(text), text).toMatch(/not valid JSON/);
    }
  });

  it("puts wallet errors in words, with no library name, version or code", () => {
    const sentences = [
      new ProviderNotFoundError(),
      new SwitchChainNotSupportedError({ connector: { name: "Test Wallet" } as never }),
      new UserRejectedRequestError(new Error("User rejected the request.")),
      new ResourceUnavailableRpcError(new Error("Request already pending")),
      new SwitchChainError(new Error("nope")),
      Object.assign(new Error("raw"), { code: 4001 }),
      new Error("anything else"),
    ].map(walletErrorSentence);
    expect(sentences[0]).toMatch(/^No wallet was found in this browser/);
    expect(sentences[1]).toMatch(/cannot switch network from here/);
    expect(sentences[2]).toBe(
      "You declined the request in your wallet. Nothing was signed or sent.",
    );
    expect(sentences[3]).toMatch(/already has a request waiting/);
    expect(sentences[5]).toBe(sentences[2]);
    for (const sentence of sentences)
      expect(sentence).not.toMatch(/Version|viem|wagmi|Error\b|Details:/);
  });
});
