import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../helpers/database-kinds";
import { type RunningServer, TEST_ADMIN_KEY } from "../helpers/server";
import { startServerOn } from "../helpers/server-on";

/**
 * A JSON body that is not an object (null, a string, a number, true, an array) is refused with
 * 400 on every operation that takes a body, never read as `{}`: sent to a quota reset, `{}` would
 * reset every counter; sent to a completion, `null` was a 500.
 */

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };
const NOT_OBJECTS = ["null", '"x"', "12", "true", "[]", '[{"aid":"a"}]'];

describe.each(DATABASE_KINDS)("bodies that are not JSON objects, on %s", (kind) => {
  let server: RunningServer;
  const post = (path: string, body: string, headers: Record<string, string> = admin) =>
    fetch(`${server.url}${path}`, { method: "POST", headers, body });

  beforeAll(async () => {
    server = await startServerOn(kind);
    expect((await post("/agents", '{"aid":"shaped"}')).status).toBe(201);
    expect((await fetch(`${server.url}/shaped/chat?q=hi`)).status).toBe(200);
  });
  afterAll(() => server?.stop());

  it("refuses them on an operation with path parameters, and changes nothing", async () => {
    for (const body of NOT_OBJECTS) {
      const refused = await post("/agents/shaped/quota/reset", body);
      expect(refused.status, body).toBe(400);
      expect((await refused.json()).detail).toMatch(/^The request body must be a JSON object/);
    }
    const agent = await (await fetch(`${server.url}/agents/shaped`, { headers: admin })).json();
    expect(agent.quota.message_count_total).toBe(1);
  });

  it("refuses them on operations without path parameters, in OpenAI's form on its paths", async () => {
    for (const body of NOT_OBJECTS) {
      expect((await post("/agents", body)).status, `POST /agents ${body}`).toBe(400);
      const completion = await post("/v1/chat/completions", body, {
        "content-type": "application/json",
      });
      expect(completion.status, `completion ${body}`).toBe(400);
      expect((await completion.json()).error).toMatchObject({ type: "invalid_request_error" });
    }
  });
});
