import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createThrowawayPostgres, DATABASE_KINDS } from "../helpers/database-kinds";
import { type FakeOpenAi, startFakeOpenAi } from "../helpers/fake-openai";
import { type RunningServer, startServer, TEST_ADMIN_KEY } from "../helpers/server";
import { until } from "../helpers/webhook-receiver";

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };

type Row = {
  request_id: string | null;
  status: number;
  code: string | null;
  [key: string]: unknown;
};

/**
 * GET /requests on the built service: the chats and completions it served, as REST clients
 * send them, each with its X-Request-Id; the filters and pages over HTTP and every refusal as
 * a problem; the rows a process still held written when it stops.
 */
describe.each(DATABASE_KINDS)("the request log over HTTP on %s", (kind) => {
  let server: RunningServer;
  let fake: FakeOpenAi;
  let env: Record<string, string>;
  let dropDatabase: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    fake = await startFakeOpenAi();
    const throwaway = kind === "postgres" ? await createThrowawayPostgres() : undefined;
    dropDatabase = throwaway?.drop;
    env = {
      ...(throwaway ? { DATABASE_URL: throwaway.url } : {}),
      LLM_BASE_URL: fake.baseUrl,
      LLM_API_KEY: "sk-test",
      LLM_MAX_RETRIES: "0",
      MODEL_PRICES: JSON.stringify({ "gpt-4o-mini": { input: 1, output: 2 } }),
    };
    server = await startServer(env);
    for (const agent of [{ aid: "rest-log" }, { aid: "rest-private", chat_access: "key" }]) {
      const made = await fetch(`${server.url}/agents`, {
        method: "POST",
        headers: admin,
        body: JSON.stringify(agent),
      });
      expect(made.status).toBe(201);
    }
  });
  afterAll(async () => {
    await server?.stop();
    await fake?.close();
    await dropDatabase?.();
  });

  const requests = async (query = "", headers: Record<string, string> = admin) =>
    fetch(`${server.url}/requests${query}`, { headers });
  const rows = async (query = ""): Promise<Row[]> =>
    (await (await requests(query)).json()).requests;
  const ids = async (query = "") => (await rows(query)).map((row) => row.request_id);
  /** On PostgreSQL two web workers serve: the other one's rows come within its second. */
  const listed = async (query: string, count: number) => {
    expect(await until(async () => (await rows(query)).length >= count)).toBe(true);
    return rows(query);
  };

  it("lists the chats and completions it served, newest first, each with its request id", async () => {
    fake.behave({
      kind: "reply",
      text: "logged",
      usage: { prompt_tokens: 10, completion_tokens: 5 },
    });
    const sent = async (id: string, path: string, init: RequestInit = {}) => {
      const response = await fetch(`${server.url}${path}`, {
        ...init,
        headers: { "x-request-id": id, ...(init.headers as Record<string, string>) },
      });
      await response.text();
      // Apart by more than the millisecond a start is kept to, so the order is theirs.
      await new Promise((resolve) => setTimeout(resolve, 3));
      return response.status;
    };
    expect(await sent("h-json", "/rest-log/chat?q=hi&chat_id=t-1", { headers: admin })).toBe(200);
    expect(
      await sent("h-sse", "/rest-log/chat?q=hi", { headers: { accept: "text/event-stream" } }),
    ).toBe(200);
    const completion = JSON.stringify({
      model: "rest-log",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(
      await sent("h-completion", "/v1/chat/completions", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: completion,
      }),
    ).toBe(200);
    expect(await sent("h-404", "/nobody-here/chat?q=hi")).toBe(404);
    expect(await sent("h-401", "/rest-private/chat?q=hi")).toBe(401);
    fake.behave({ kind: "error", status: 500 });
    expect(await sent("h-502", "/rest-log/chat?q=hi")).toBe(502);

    const all = await listed("", 6);
    // Requests are logged in the order they started (each ended before the next began).
    expect(all.map((row) => row.request_id)).toEqual([
      "h-502",
      "h-401",
      "h-404",
      "h-completion",
      "h-sse",
      "h-json",
    ]);
    const byId = Object.fromEntries(all.map((row) => [row.request_id, row]));
    expect(byId["h-json"]).toMatchObject({
      via: "chat",
      aid: "rest-log",
      caller: "admin",
      caller_label: "admin",
      chat_id: "t-1",
      status: 200,
      code: null,
      input_tokens: 10,
      output_tokens: 5,
      cost: 0.00002,
    });
    expect(byId["h-sse"]).toMatchObject({ via: "chat", status: 200, input_tokens: 10 });
    expect(String(byId["h-sse"]?.caller)).toMatch(/^addr:[0-9a-f]{16}$/);
    expect(byId["h-completion"]).toMatchObject({
      via: "completions",
      chat_id: "openai",
      status: 200,
    });
    expect(byId["h-404"]).toMatchObject({ status: 404, code: "agent_not_found", cost: null });
    expect(byId["h-401"]).toMatchObject({ status: 401, code: "key_required", aid: "rest-private" });
    expect(byId["h-502"]).toMatchObject({
      status: 502,
      code: "provider_error",
      input_tokens: null,
    });
    for (const row of all) {
      expect(row.started_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(row.latency_ms).toBeGreaterThanOrEqual(0);
    }

    // The filters, as a query string gives them.
    expect(await ids("?aid=rest-private")).toEqual(["h-401"]);
    expect(await ids("?caller=admin")).toEqual(["h-json"]);
    expect(await ids("?status=failed")).toEqual(["h-502", "h-401", "h-404"]);
    expect(await ids("?status=404")).toEqual(["h-404"]);
    // From inclusive, to exclusive (a model call takes more than the millisecond they are kept to).
    const from = encodeURIComponent(byId["h-json"]?.started_at as string);
    const to = encodeURIComponent(byId["h-404"]?.started_at as string);
    expect(await ids(`?from=${from}&to=${to}`)).toEqual(["h-completion", "h-sse", "h-json"]);
    // Pages of two, then back.
    const first = await (await requests("?limit=2")).json();
    expect(first.requests.map((row: Row) => row.request_id)).toEqual(["h-502", "h-401"]);
    const second = await (await requests(`?limit=2&cursor=${first.next_cursor}`)).json();
    expect(second.requests.map((row: Row) => row.request_id)).toEqual(["h-404", "h-completion"]);
    const back = await (await requests(`?limit=2&cursor=${second.prev_cursor}`)).json();
    expect(back.requests).toEqual(first.requests);
  });

  it("refuses with a problem that names what is wrong", async () => {
    const refused = async (query: string, headers: Record<string, string> = admin) => {
      const response = await requests(query, headers);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
      return { status: response.status, ...(await response.json()) };
    };
    expect(await refused("", {})).toMatchObject({ status: 401, code: "unauthorized" });
    expect(await refused("?status=5xx")).toMatchObject({
      status: 400,
      code: "validation_failed",
      errors: [{ field: "status" }],
    });
    expect((await refused("?status=5xx")).detail).toMatch(
      /^The request has invalid fields: status must be/,
    );
    expect(await refused("?from=yesterday")).toMatchObject({
      status: 400,
      errors: [{ field: "from" }],
    });
    expect(await refused("?from=2026-11-24T10:00:00Z&to=2026-11-24T09:00:00Z")).toMatchObject({
      status: 400,
      detail: "The request has invalid fields: to must be after from.",
    });
    expect(await refused("?limit=0")).toMatchObject({ status: 400, errors: [{ field: "limit" }] });
    expect(await refused("?caller=")).toMatchObject({ status: 400, errors: [{ field: "caller" }] });
    expect(await refused("?cursor=bm90LWEtY3Vyc29y")).toMatchObject({
      status: 400,
      code: "invalid_cursor",
    });
    expect(await refused("?status=404&status=429")).toMatchObject({
      status: 400,
      detail: "The query parameter 'status' is given more than once.",
    });
    const post = await fetch(`${server.url}/requests`, { method: "POST", headers: admin });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET");
  });

  it("writes the rows a process still holds when it stops", async () => {
    // The chat is in flight when SIGTERM comes: it ends during the shutdown, so its row can
    // only be written by the shutdown (the second's timer is never reached).
    fake.behave({ kind: "reply", text: "late", delayMs: 800 });
    const answered = fetch(`${server.url}/rest-log/chat?q=late`, {
      headers: { ...admin, "x-request-id": "h-last" },
    });
    expect(await until(() => fake.inFlight() === 1)).toBe(true);
    const exited = server.signal("SIGTERM");
    expect((await answered).status).toBe(200);
    expect(await exited).toBe(0);
    server = await startServer(env, { dataDir: server.dataDir });
    const last = await listed("?caller=admin&status=200", 1);
    expect(last[0]).toMatchObject({ request_id: "h-last", status: 200, input_tokens: 10 });
  });
});
