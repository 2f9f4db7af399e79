import { expect } from "vitest";
import { TEST_ADMIN_KEY } from "./server";

/** The admin key's headers for a JSON request. */
export const adminHeaders = {
  authorization: `Bearer ${TEST_ADMIN_KEY}`,
  "content-type": "application/json",
};

/**
 * What the HTTP tests of a way in ask of the REST API with the admin key: agents made, keys
 * made (named `keyName`) and agents read, each answer's status checked. `url` is read at each
 * call, the server being started in a beforeAll.
 */
export function adminApi(url: () => string, keyName: string) {
  const post = async (path: string, body: unknown, expected = 201) => {
    const response = await fetch(`${url()}${path}`, {
      method: "POST",
      headers: adminHeaders,
      body: JSON.stringify(body),
    });
    expect(response.status, `${path}: ${await response.clone().text()}`).toBe(expected);
    return response.json();
  };
  return {
    post,
    createAgent: (body: Record<string, unknown>) => post("/agents", body),
    keyOf: async (aid: string): Promise<string> =>
      (await post(`/agents/${aid}/keys`, { name: keyName })).key,
    agent: async (aid: string) =>
      (await fetch(`${url()}/agents/${aid}`, { headers: adminHeaders })).json(),
  };
}
