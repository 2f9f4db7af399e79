import type { LookupAddress } from "node:dns";
import { lookup } from "node:dns/promises";
import { hostname } from "node:os";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { agents } from "@/db/schema";
import { fixedClock } from "@/server/kit/clock";
import { isNonPublicAddress } from "@/server/kit/outgoing";
import { problemOf } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";
import { useFakeOpenAi } from "../helpers/use-fake-openai";
import { useTools } from "../helpers/use-tools";

/**
 * Names answered here rather than by DNS: a public-looking name that resolves to the metadata
 * address, and one that resolves to loopback (where the test's MCP server is). Every other name
 * goes to the real resolver.
 */
const ANSWERS: Record<string, LookupAddress[]> = {
  "metadata.example.com": [{ address: "169.254.169.254", family: 4 }],
  "inside.example.com": [{ address: "127.0.0.1", family: 4 }],
};
vi.mock("node:dns", async (importOriginal) => {
  const dns = await importOriginal<typeof import("node:dns")>();
  const lookup = (
    name: string,
    options: object,
    callback: (error: Error | null, addresses: LookupAddress[]) => void,
  ) => {
    const answer = ANSWERS[name];
    if (answer) queueMicrotask(() => callback(null, answer));
    else dns.lookup(name, { ...options, all: true }, callback);
  };
  return { ...dns, default: { ...dns, lookup }, lookup };
});

const NOT_LISTED =
  "private, loopback or other non-public address, which MCP_ALLOWED_HOSTS does not list";
const METADATA = "a cloud metadata address, which is never allowed, listed or not";

/**
 * The outgoing rule for agents' MCP servers: public hosts free, non-public ones only when
 * MCP_ALLOWED_HOSTS lists them, cloud metadata addresses never; judged on the URL when saved and
 * called, and on the addresses a name resolves to when connecting.
 */
describe.each(DATABASE_KINDS)("where agents' MCP servers may be, on %s", (kind) => {
  const clock = fixedClock("2026-11-21T20:00:00Z");
  const testDatabase = useTestDatabase(kind, { clock, start: "2026-11-21T20:00:00Z" });
  const fake = useFakeOpenAi("Hello from the fake model.");
  const { server, runtime, caller, agent } = useTools(testDatabase, fake, clock);
  const unlisted = { MCP_ALLOWED_HOSTS: "" };

  /** A chat of `aid` in which the model calls `add` once; the call as the reply records it. */
  const addOnce = async (aid: string, env: Record<string, string> = {}) => {
    fake().behave(
      { kind: "tools", calls: [{ name: "add", arguments: { a: 1, b: 1 } }] },
      { kind: "reply", text: "done" },
    );
    const reply = await caller(runtime(env)).chat.send({ aid, q: "1+1" });
    expect(reply.reply).toBe("done");
    return reply.tool_calls[0];
  };

  /** Stores `url` as the agent's server as it is, past the check made when saving. */
  const storeAsIs = (aid: string, url: string) =>
    testDatabase()
      .db.update(agents)
      .set({ mcpServers: [{ name: "calc", url, headers: {}, allowed_tools: ["add"] }] })
      .where(eq(agents.aid, aid));

  it("refuses a loopback server unless MCP_ALLOWED_HOSTS lists it, when saved and when called", async () => {
    const host = new URL(server().url).host;
    expect(
      await problemOf(
        caller(undefined, { env: unlisted }).agents.upsert({
          aid: "internal",
          mcp_servers: [{ name: "calc", url: server().url }],
        }),
      ),
    ).toMatchObject({
      status: 400,
      errors: [
        {
          field: "mcp_servers.0.url",
          detail: `is on a ${NOT_LISTED}; to allow it, add '${host}' to that setting (hosts separated by commas) and restart the service`,
        },
      ],
    });
    // A public host needs no listing.
    const external = await caller(undefined, { env: unlisted }).agents.upsert({
      aid: "external",
      mcp_servers: [{ name: "ext", url: "https://a.tools.example.com/mcp" }],
    });
    expect(external.agent.mcp_servers).toHaveLength(1);

    // Listed: saved and called.
    await agent("listed", {
      mcp_servers: [{ name: "calc", url: server().url, allowed_tools: ["add"] }],
    });
    expect(await addOnce("listed")).toMatchObject({ result: "2", error: null });
    // The listing taken away since: nothing reaches the server.
    server().headers.splice(0);
    expect(await addOnce("listed", unlisted)).toMatchObject({
      result: null,
      error: `MCP server 'calc' was not called: its URL is on a ${NOT_LISTED}; to allow it, add '${host}' to that setting (hosts separated by commas) and restart the service.`,
    });
    expect(server().headers).toHaveLength(0);
  });

  it("never takes a cloud metadata address, listed or not, however the URL spells it", async () => {
    const listed = { MCP_ALLOWED_HOSTS: "127.0.0.1,169.254.169.254,[::ffff:a9fe:a9fe]" };
    for (const url of [
      "http://169.254.169.254/mcp",
      "http://[::ffff:169.254.169.254]/mcp",
      "http://[::ffff:a9fe:a9fe]/mcp",
      "http://2852039166/mcp",
      "http://[fd00:ec2::254]/mcp",
    ]) {
      const refused = await problemOf(
        caller(undefined, { env: listed }).agents.upsert({
          aid: "metadata",
          mcp_servers: [{ name: "meta", url }],
        }),
      );
      expect(refused, url).toMatchObject({
        status: 400,
        errors: [{ field: "mcp_servers.0.url", detail: `is on ${METADATA}` }],
      });
    }
    // One saved before the rule (a review found one): refused when called, before connecting.
    await agent("saved-before", { mcp_servers: [{ name: "calc", url: server().url }] });
    await storeAsIs("saved-before", "http://[::ffff:169.254.169.254]/mcp");
    expect(await addOnce("saved-before", { ...listed, MCP_TOOL_TIMEOUT_MS: "1000" })).toMatchObject(
      { result: null, error: `MCP server 'calc' was not called: its URL is on ${METADATA}.` },
    );
  });

  it("refuses at connection time a name whose address is the metadata one, listed or not", async () => {
    const url = `http://metadata.example.com:${new URL(server().url).port}/mcp`;
    await agent("named-metadata", { mcp_servers: [{ name: "calc", url, allowed_tools: ["add"] }] });
    for (const listing of ["", "metadata.example.com,169.254.169.254"])
      expect(
        await addOnce("named-metadata", {
          MCP_ALLOWED_HOSTS: listing,
          MCP_TOOL_TIMEOUT_MS: "1000",
        }),
      ).toMatchObject({
        result: null,
        error: `MCP server 'calc' was not called: its host resolves to ${METADATA}.`,
      });
  });

  it("refuses at connection time a name that resolves to loopback, unless the name is listed", async () => {
    const url = `http://inside.example.com:${new URL(server().url).port}/mcp`;
    // Saved: a name is judged by its addresses, when connecting.
    await agent("named-inside", { mcp_servers: [{ name: "calc", url, allowed_tools: ["add"] }] });
    expect(await addOnce("named-inside", unlisted)).toMatchObject({
      result: null,
      error: `MCP server 'calc' was not called: its host resolves to a ${NOT_LISTED}.`,
    });
    expect(server().headers).toHaveLength(0);
    expect(
      await addOnce("named-inside", { MCP_ALLOWED_HOSTS: "inside.example.com" }),
    ).toMatchObject({ result: "2", error: null });
    // The tools page says the same as the model is told.
    const listedTools = await caller(runtime(unlisted)).tools.list({ aid: "named-inside" });
    expect(listedTools.servers[0]).toMatchObject({
      status: "refused",
      error: `MCP server 'calc' was not called: its host resolves to a ${NOT_LISTED}.`,
    });
  });

  it("checks the machine's own name by what the resolver answers, as any name", async () => {
    // The machine's own name resolves to a loopback or private address (/etc/hosts).
    const name = hostname();
    const { address } = await lookup(name);
    expect(isNonPublicAddress(address), `${name} resolves to ${address}`).toBe(true);
    await agent("own-name", {
      mcp_servers: [
        {
          name: "calc",
          url: `http://${name}:${new URL(server().url).port}/mcp`,
          allowed_tools: ["add"],
        },
      ],
    });
    expect(await addOnce("own-name", unlisted)).toMatchObject({
      result: null,
      error: `MCP server 'calc' was not called: its host resolves to a ${NOT_LISTED}.`,
    });
    expect(server().headers).toHaveLength(0);
  });
});
