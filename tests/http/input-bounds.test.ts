import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../helpers/database-kinds";
import { type RunningServer, TEST_ADMIN_KEY } from "../helpers/server";
import { startServerOn } from "../helpers/server-on";

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };
const INT4_MAX = 2_147_483_647;
const INSTANT_RANGE = "from 1970-01-01T00:00:00Z to 9998-12-31T23:59:59.999Z";

/** A cursor as the service encodes them (base64url of JSON): here, one it never gave out. */
const forgedCursor = (position: unknown) =>
  Buffer.from(JSON.stringify(position)).toString("base64url");

/**
 * Numbers and instants a client sends that PostgreSQL's `integer` or `timestamptz`, or a JS
 * Date, cannot hold (issue 23): a 400 that names the parameter and its range, never a 500.
 */
describe.each(DATABASE_KINDS)("input bounds over HTTP on %s", (kind) => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServerOn(kind);
    const created = await fetch(`${server.url}/agents`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ aid: "bounded" }),
    });
    expect(created.status).toBe(201);
  });
  afterAll(() => server?.stop());

  const get = (path: string, headers: Record<string, string> = admin) =>
    fetch(`${server.url}${path}`, { headers });

  /** A 400 problem whose one invalid field is `field`, with a detail that names it. */
  async function refused(response: Response, field: string) {
    const body = await response.json();
    expect(response.status, JSON.stringify(body)).toBe(400);
    expect(response.headers.get("content-type")).toContain("application/problem+json");
    expect(body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
    expect(body.detail).toContain(`${field} must be`);
    return body as { code: string; detail: string };
  }

  it("answers a deployment id out of PostgreSQL's integer with 400 naming the range, and says 'deployment id'", async () => {
    for (const id of ["2147483648", "99999999999999999999", "-1", "0", "1.5", "abc"]) {
      const body = await refused(await get(`/v1/deployments/${id}`), "id");
      expect(body.code, id).toBe("validation_failed");
      expect(body.detail, id).toContain(`a deployment id: a whole number from 1 to ${INT4_MAX}`);
      expect(body.detail, id).not.toContain("agent ID");
    }
    // The largest id there can be is only not found.
    expect((await get(`/v1/deployments/${INT4_MAX}`)).status).toBe(404);
    // The dashboard's procedure that takes an id, over /api/trpc.
    const input = encodeURIComponent(
      JSON.stringify({ id: INT4_MAX + 1, signer: "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4" }),
    );
    const options = await get(`/api/trpc/deployments.changeOptions?input=${input}`);
    expect(options.status).toBe(400);
  });

  it("answers a proposal_id filter out of the range a proposal_id has with 400 naming it", async () => {
    for (const value of ["2147483648", "-2147483649", "-1", "1e12"]) {
      const body = await refused(await get(`/v1/deployments?proposal_id=${value}`), "proposal_id");
      expect(body.detail, value).toContain(`a whole number from 0 to ${INT4_MAX}`);
    }
    const edge = await get(`/v1/deployments?proposal_id=${INT4_MAX}`);
    expect(edge.status).toBe(200);
    expect((await edge.json()).deployments).toEqual([]);
  });

  it("refuses a deployments cursor holding an id out of PostgreSQL's integer as a bad cursor", async () => {
    for (const position of [{ before: INT4_MAX + 1 }, { after: INT4_MAX + 1 }, { after: -1 }]) {
      const response = await get(`/v1/deployments?cursor=${forgedCursor(position)}`);
      expect(response.status, JSON.stringify(position)).toBe(400);
      expect((await response.json()).code).toBe("invalid_cursor");
    }
  });

  it("answers usage `from`/`to` out of 1970 to 9998 with 400 naming the parameter and range, on both paths", async () => {
    const cases: [string, string][] = [
      ["from=0000-01-01T00:00:00Z", "from"],
      ["from=1969-12-31T23:59:59.999Z", "from"],
      ["to=0000-01-01T00:00:00Z", "to"],
      ["to=9999-12-31T23:59:59Z", "to"],
      ["to=9999-01-01T00:00:00Z", "to"],
      // The same instant, written with an offset.
      ["to=9998-12-31T23:30:00-01:00", "to"],
      ["from=9999-12-31T23:59:59Z&granularity=hour", "from"],
    ];
    for (const path of ["/usage", "/agents/bounded/usage"]) {
      for (const [query, field] of cases) {
        for (const accept of ["application/json", "text/csv"]) {
          const body = await refused(await get(`${path}?${query}`, { ...admin, accept }), field);
          expect(body.detail, `${path}?${query}`).toContain(INSTANT_RANGE);
        }
      }
    }
  });

  it("answers usage at the ends of the range, the range moved to whole days and hours", async () => {
    for (const path of ["/usage", "/agents/bounded/usage"]) {
      const earliest = await get(`${path}?to=1970-01-01T00:00:00Z`);
      expect(earliest.status).toBe(200);
      // The default start, 30 days before `to`, may be before 1970: it is not a client's.
      expect(await earliest.json()).toMatchObject({
        from: "1969-12-02T00:00:00.000Z",
        to: "1970-01-01T00:00:00.000Z",
      });
      const latest = await get(
        `${path}?from=9998-12-31T23:59:59.999Z&to=9998-12-31T23:59:59.999Z&granularity=hour`,
      );
      expect(latest.status).toBe(200);
      expect(await latest.json()).toMatchObject({
        from: "9998-12-31T23:00:00.000Z",
        to: "9999-01-01T00:00:00.000Z",
        next_from: null,
      });
      const csv = await get(`${path}?from=9998-01-01T00:00:00Z&to=9998-12-31T23:59:59.999Z`, {
        ...admin,
        accept: "text/csv",
      });
      expect(csv.status).toBe(200);
      expect((await csv.text()).trim().split("\n")).toHaveLength(1 + 365);
    }
  });

  it("refuses a threads cursor with an instant or text PostgreSQL cannot take as a bad cursor", async () => {
    for (const position of [
      { at: "0000-01-01T00:00:00Z", caller: "admin", id: "default" },
      { at: "9999-12-31T23:59:59Z", caller: "admin", id: "default" },
      { at: "2026-01-01T00:00:00Z", caller: "admin\u0000", id: "default" },
      { at: "2026-01-01T00:00:00Z", caller: "admin", id: "default\u0000" },
    ]) {
      const response = await get(`/agents/bounded/threads?cursor=${forgedCursor(position)}`);
      expect(response.status, JSON.stringify(position)).toBe(400);
      expect((await response.json()).code).toBe("invalid_cursor");
    }
    const fine = forgedCursor({ at: "2026-01-01T00:00:00Z", caller: "admin", id: "default" });
    expect((await get(`/agents/bounded/threads?cursor=${fine}`)).status).toBe(200);
  });

  it("names a key's id a key's id, and keeps 'Invalid agent ID format' for an agent's", async () => {
    const revoke = await fetch(`${server.url}/agents/bounded/keys/${"k".repeat(101)}`, {
      method: "DELETE",
      headers: admin,
    });
    const body = await refused(revoke, "id");
    expect(body.code).toBe("validation_failed");
    expect(body.detail).toContain("key's id");
    // `id` is the alias of `aid` in an agent's body: there it is an agent's ID.
    const agent = await fetch(`${server.url}/agents`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ id: "Bad ID" }),
    });
    expect(agent.status).toBe(400);
    expect(await agent.json()).toMatchObject({ code: "invalid_agent_id" });
  });

  it("shows the bounds in /openapi.json", async () => {
    const doc = await (await get("/openapi.json", {})).json();
    const parameter = (path: string, name: string) =>
      doc.paths[path].get.parameters.find((p: { name: string }) => p.name === name).schema;
    expect(parameter("/v1/deployments/{id}", "id")).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: INT4_MAX,
    });
    expect(parameter("/v1/deployments", "proposal_id")).toMatchObject({
      type: "integer",
      minimum: 0,
      maximum: INT4_MAX,
    });
    expect(parameter("/v1/deployments", "limit")).toMatchObject({ minimum: 1, maximum: 500 });
    expect(parameter("/usage", "top")).toMatchObject({ minimum: 1, maximum: 100 });
    for (const path of ["/usage", "/agents/{aid}/usage"]) {
      for (const name of ["from", "to"]) {
        expect(parameter(path, name).description).toContain(
          "1970-01-01T00:00:00Z to 9998-12-31T23:59:59.999Z",
        );
      }
    }
  });
});
