import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer, TEST_ADMIN_KEY } from "../helpers/server";

/**
 * What a client names that the API does not have is refused, never ignored: a list's filter it
 * does not take (ignored, the list would hold everything), and an OpenAI path it does not serve
 * (answered in OpenAI's form, which OpenAI's clients read).
 */

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}` };

describe("parameters and paths the API does not have", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.stop());

  it("refuses a query parameter a list does not take, naming it and what it takes", async () => {
    for (const path of [
      "/agents?owner=me",
      "/requests?agent=x&limit=5",
      "/v1/deployments?mine=1",
      "/prices?model=x",
    ]) {
      const refused = await fetch(`${server.url}${path}`, { headers: admin });
      expect(refused.status, path).toBe(400);
      const body = await refused.json();
      expect(body.detail, path).toMatch(/has no query parameter '/);
      expect(body.errors?.[0]?.detail, path).toBe("is not a parameter of this operation");
    }
    const models = await fetch(`${server.url}/v1/models?owned_by=me`);
    expect(models.status).toBe(400);
    expect((await models.json()).error).toMatchObject({
      type: "invalid_request_error",
      param: "owned_by",
    });
    expect((await fetch(`${server.url}/agents?limit=5`, { headers: admin })).status).toBe(200);
  });

  it("lets chat's callers add parameters of their own", async () => {
    const made = await fetch(`${server.url}/agents`, {
      method: "POST",
      headers: { ...admin, "content-type": "application/json" },
      body: '{"aid":"lenient"}',
    });
    expect(made.status).toBe(201);
    expect((await fetch(`${server.url}/lenient/chat?q=hi&_=1732700000`)).status).toBe(200);
  });

  it("answers an OpenAI path it does not serve in OpenAI's form, its own in problems", async () => {
    const embeddings = await fetch(`${server.url}/v1/embeddings`, { method: "POST" });
    expect(embeddings.status).toBe(404);
    expect(embeddings.headers.get("content-type")).toBe("application/json");
    expect((await embeddings.json()).error).toMatchObject({ type: "invalid_request_error" });
    const own = await fetch(`${server.url}/v1/deployments/1/nothing`, { headers: admin });
    expect(own.status).toBe(404);
    expect(own.headers.get("content-type")).toBe("application/problem+json");
  });
});
