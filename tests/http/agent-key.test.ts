import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../helpers/database-kinds";
import { type RunningServer, TEST_ADMIN_KEY } from "../helpers/server";
import { startServerOn } from "../helpers/server-on";

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };

describe.each(DATABASE_KINDS)("GET /agents/{aid}/keys/{id} on %s", (kind) => {
  let server: RunningServer;
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, { ...init, headers: { ...admin, ...init.headers } });

  beforeAll(async () => {
    server = await startServerOn(kind);
    expect((await call("/agents", { method: "POST", body: '{"aid":"keyed"}' })).status).toBe(201);
  });
  afterAll(() => server?.stop());

  it("reads one key without its secret, as the listing shows it", async () => {
    const made = await call("/agents/keyed/keys", {
      method: "POST",
      body: JSON.stringify({ name: "mobile app", rate_limit_rpm: 30 }),
    });
    const { key, ...shown } = await made.json();
    expect(key).toMatch(/^ak_/);
    const read = await call(`/agents/keyed/keys/${shown.id}`);
    expect(read.status).toBe(200);
    const body = await read.json();
    expect(body).toEqual(shown);
    expect(JSON.stringify(body)).not.toContain(key);
    expect((await (await call("/agents/keyed/keys")).json()).keys).toContainEqual(body);
  });

  it("answers 404 for a key that is not there or was revoked, 401 without the admin key", async () => {
    const { id } = await (
      await call("/agents/keyed/keys", { method: "POST", body: '{"name":"gone"}' })
    ).json();
    expect((await call(`/agents/keyed/keys/${id}`, { method: "DELETE" })).status).toBe(204);
    for (const path of [
      `/agents/keyed/keys/${id}`,
      "/agents/keyed/keys/nope",
      `/agents/nobody/keys/${id}`,
    ]) {
      const refused = await call(path);
      expect(refused.status, path).toBe(404);
      expect((await refused.json()).detail).toMatch(/^[A-Z].*\.$/);
    }
    const anonymous = await fetch(`${server.url}/agents/keyed/keys/${id}`);
    expect(anonymous.status).toBe(401);
  });
});
