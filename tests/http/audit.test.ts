import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../helpers/database-kinds";
import { type ModelServer, startModelServer } from "../helpers/model-server";
import { sendAsAdmin, TEST_ADMIN_KEY } from "../helpers/server";

/**
 * The audit log over HTTP, on the built service: a REST change's entry carries the X-Request-Id
 * of its answer and who made it; GET /audit is the admin's only.
 */
describe.each(DATABASE_KINDS)("the audit log over HTTP on %s", (kind) => {
  let running: ModelServer | undefined;

  beforeAll(async () => {
    running = await startModelServer(kind, { SCHEDULER: "off" });
  });
  afterAll(async () => {
    await running?.stop();
  });

  it("names each change's request and actor, and is the admin's only", async () => {
    const server = running?.server;
    if (!server) throw new Error("not started");
    const created = await fetch(`${server.url}/agents`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ aid: "watched" }),
    });
    expect(created.status).toBe(201);
    const requestId = created.headers.get("x-request-id");
    expect(requestId).toBeTruthy();
    const listed = await sendAsAdmin(server, "GET", "/audit?target=agent:watched");
    expect(listed.status).toBe(200);
    expect(listed.json.entries).toMatchObject([
      {
        action: "agent.created",
        actor: "admin-key",
        actor_via: "key",
        request_id: requestId,
        before: null,
        after: { aid: "watched" },
      },
    ]);
    expect(listed.json.entries[0].client).toMatch(/^[0-9a-f]{8,}$/);
    const anonymous = await fetch(`${server.url}/audit`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("content-type")).toMatch(/application\/problem\+json/);
    const bad = await sendAsAdmin(server, "GET", "/audit?since=yesterday");
    expect(bad.status).toBe(400);

    // As CSV: every entry the filters match (here over 2 pages of 500), newest first.
    for (let i = 0; i < 510; i++)
      await sendAsAdmin(server, "POST", "/agents", { aid: "watched", rate_limit_rpm: i + 1 });
    const csv = await fetch(`${server.url}/audit?target=agent:watched&limit=1`, {
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, accept: "text/csv" },
    });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    const lines = (await csv.text()).trimEnd().split("\r\n");
    expect(lines[0]).toBe("id,at,actor,actor_via,action,target,request_id,client,before,after");
    expect(lines).toHaveLength(1 + 511);
    expect(lines[1]).toMatch(/^\d+,[^,]+,admin-key,key,agent\.updated,agent:watched,/);
    expect(lines.at(-1)).toMatch(/,agent\.created,agent:watched,/);
    const badCsv = await fetch(`${server.url}/audit?since=yesterday`, {
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, accept: "text/csv" },
    });
    expect(badCsv.status).toBe(400);
  });
});
