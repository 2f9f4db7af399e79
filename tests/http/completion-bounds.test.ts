import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../helpers/database-kinds";
import { type ModelServer, startModelServer } from "../helpers/model-server";
import { TEST_ADMIN_KEY } from "../helpers/server";

/**
 * A completion's response_format.json_schema is the client's JSON, sent on to the model: one
 * nested thousands of levels deep (10 kB) overflowed the stack of JSON.stringify and answered
 * 500. Its depth and size are bounded, and a refusal names the parameter.
 */

const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
const withSchema = (schema: string) =>
  `{"model":"formatted","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":${schema}}}}`;

describe.each(DATABASE_KINDS)("response_format's schema, on %s", (kind) => {
  let running: ModelServer;
  const complete = (body: string) =>
    fetch(`${running.server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer none" },
      body,
    });

  beforeAll(async () => {
    running = await startModelServer(kind);
    const made = await fetch(`${running.server.url}/agents`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" },
      body: '{"aid":"formatted"}',
    });
    expect(made.status).toBe(201);
  });
  afterAll(() => running?.stop());

  it("refuses a schema nested too deep, or too large, with 400 naming the parameter", async () => {
    for (const schema of [nested(5000), nested(33), `{"enum":["${"x".repeat(40_000)}"]}`]) {
      const refused = await complete(withSchema(schema));
      expect(refused.status).toBe(400);
      const { error } = await refused.json();
      expect(error.type).toBe("invalid_request_error");
      expect(error.param).toBe("response_format.json_schema");
    }
    expect(running.fake.requests).toHaveLength(0);
  });

  it("passes a schema of ordinary depth on to the model", async () => {
    running.fake.behave({ kind: "reply", text: '{"a":1}' });
    const answered = await complete(withSchema(nested(20)));
    expect(answered.status).toBe(200);
    expect(running.fake.requests.at(-1)?.response_format).toMatchObject({ type: "json_schema" });
  });
});
