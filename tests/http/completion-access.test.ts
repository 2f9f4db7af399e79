import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../helpers/database-kinds";
import { type RunningServer, TEST_ADMIN_KEY } from "../helpers/server";
import { startServerOn } from "../helpers/server-on";

/**
 * A completion tells a caller no more than GET /v1/models does: an agent it may not chat with
 * is a model that is not there (404), whether the agent is missing or takes its own keys only,
 * and a key is judged alone (401 when it is no live key, whichever model it names).
 */

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };

describe.each(DATABASE_KINDS)("completions for agents a caller may not use, on %s", (kind) => {
  let server: RunningServer;
  let otherKey: string;
  const complete = (model: string, bearer: string) =>
    fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
      body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
    });
  const answerOf = async (response: Response) => {
    const { error } = await response.json();
    return {
      status: response.status,
      code: error.code,
      message: error.message.replace(/'[^']*'/, "'…'"),
    };
  };

  beforeAll(async () => {
    server = await startServerOn(kind);
    for (const body of [
      '{"aid":"private","chat_access":"key"}',
      '{"aid":"other","chat_access":"key"}',
    ])
      expect(
        (await fetch(`${server.url}/agents`, { method: "POST", headers: admin, body })).status,
      ).toBe(201);
    const made = await fetch(`${server.url}/agents/other/keys`, {
      method: "POST",
      headers: admin,
      body: '{"name":"other"}',
    });
    otherKey = (await made.json()).key;
  });
  afterAll(() => server?.stop());

  it("answers a private agent as it answers a missing one, without a key or with another agent's", async () => {
    for (const bearer of ["none", () => otherKey] as const) {
      const key = typeof bearer === "string" ? bearer : bearer();
      const privateOne = await answerOf(await complete("private", key));
      const missing = await answerOf(await complete("nobody", key));
      expect(privateOne).toEqual(missing);
      expect(privateOne).toMatchObject({ status: 404, code: "model_not_found" });
    }
  });

  it("judges a key apart from the model: 401 for one that is no live key, named model or not", async () => {
    const wrong = `ak_${"x".repeat(12)}_${"y".repeat(43)}`;
    const privateOne = await answerOf(await complete("private", wrong));
    const missing = await answerOf(await complete("nobody", wrong));
    expect(privateOne).toEqual(missing);
    expect(privateOne.status).toBe(401);
  });
});
