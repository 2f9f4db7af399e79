import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../helpers/database-kinds";
import { sampleProposal } from "../helpers/proposal";
import { type RunningServer, TEST_ADMIN_KEY } from "../helpers/server";
import { startServerOn } from "../helpers/server-on";

const headers = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };

/**
 * Text that PostgreSQL will not store, sent where it would be stored: the NUL character in any
 * text, half of a surrogate pair in jsonb (JSON.stringify writes it as an escape, such as
 * "\ud800", which jsonb refuses). Each is a 400 naming the field, never a 500. Bodies are sent as
 * JSON text with the escapes, which JSON.parse turns into the real characters.
 */
describe.each(DATABASE_KINDS)("text the database cannot store, over HTTP on %s", (kind) => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServerOn(kind);
  });
  afterAll(() => server?.stop());

  const post = (path: string, body: unknown) =>
    fetch(`${server.url}${path}`, { method: "POST", headers, body: JSON.stringify(body) });

  /** The answer's status and the fields its problem names. */
  async function refusal(response: Response) {
    const body = await response.json();
    return { status: response.status, fields: body.errors?.map((e: { field: string }) => e.field) };
  }

  const deployment = { user_address: "0x0000000000000000000000000000000000000004" };

  it("refuses them in a deployment: request_id, the proposal, deployment_details", async () => {
    const cases: [unknown, string][] = [
      [{ ...deployment, request_id: "a\u0000b", proposal: sampleProposal }, "request_id"],
      [
        { ...deployment, proposal: { ...sampleProposal, accept_currency: "\ud800" } },
        "proposal.accept_currency",
      ],
      [
        { ...deployment, proposal: { ...sampleProposal, extra_attribute: { k: "x\udc00" } } },
        "proposal.extra_attribute",
      ],
      [
        { ...deployment, proposal: sampleProposal, deployment_details: { "\ud800": 1 } },
        "deployment_details",
      ],
    ];
    for (const [body, field] of cases) {
      expect.soft(await refusal(await post("/v1/deployments", body)), field).toEqual({
        status: 400,
        fields: [field],
      });
    }
  });

  it("refuses them in an agent's MCP servers: the URL, a tool name, a header's value", async () => {
    const server = (fields: Record<string, unknown>) => ({
      aid: "surrogates",
      mcp_servers: [{ name: "tickets", url: "https://mcp.example.com/mcp", ...fields }],
    });
    const cases: [unknown, string][] = [
      [server({ url: "https://mcp.example.com/mcp\ud800" }), "mcp_servers.0.url"],
      [server({ allowed_tools: ["search", "\udc00"] }), "mcp_servers.0.allowed_tools.1"],
      [
        server({ headers: { Authorization: `Bearer ${"s".repeat(20)}\ud800` } }),
        "mcp_servers.0.headers.Authorization",
      ],
    ];
    for (const [body, field] of cases) {
      expect.soft(await refusal(await post("/agents", body)), field).toEqual({
        status: 400,
        fields: [field],
      });
    }
  });

  it("stores a header whose last four characters hold a whole surrogate pair", async () => {
    // The hint is the last four characters: four UTF-16 units would cut 😀 in half.
    const created = await post("/agents", {
      aid: "emoji-secret",
      mcp_servers: [
        {
          name: "tickets",
          url: "https://mcp.example.com/mcp",
          headers: { Authorization: `Bearer ${"s".repeat(20)}😀xyz` },
        },
      ],
    });
    expect(created.status).toBe(201);
    expect((await created.json()).mcp_servers[0].headers.Authorization).toEqual({
      secret: true,
      hint: "…😀xyz",
    });
  });
});
