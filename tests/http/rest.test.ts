import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../helpers/database-kinds";
import { type RunningServer, TEST_ADMIN_KEY } from "../helpers/server";
import { startServerOn } from "../helpers/server-on";

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}` };
const jsonHeaders = { ...admin, "content-type": "application/json" };

/**
 * POSTs `chunks` chunks of `size` bytes with chunked transfer encoding on a raw socket, and
 * resolves with everything the server sent back (status line, headers, body) once it closes.
 * Write errors are ignored: the answer is what matters.
 */
function postChunked(base: string, path: string, chunks: number, size: number): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    let received = "";
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n` +
          `Authorization: ${admin.authorization}\r\nContent-Type: application/json\r\n` +
          "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
      );
      const chunk = `${size.toString(16)}\r\n${"x".repeat(size)}\r\n`;
      for (let i = 0; i < chunks && !socket.destroyed; i++) socket.write(chunk);
      if (!socket.destroyed) socket.write("0\r\n\r\n");
    });
    socket.setEncoding("utf8");
    socket.on("data", (data) => {
      received += data;
    });
    socket.on("error", () => {}); // EPIPE / ECONNRESET once the server has answered and closed
    socket.on("close", () => (received ? resolve(received) : reject(new Error("no answer"))));
  });
}

async function expectProblem(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  const body = await response.json();
  expect(body).toMatchObject({ type: "about:blank", status, code });
  expect(typeof body.title).toBe("string");
  expect(body.detail).toMatch(/^[A-Z].*\.$/); // a sentence
  return body;
}

describe.each(DATABASE_KINDS)("REST API over HTTP on %s", (kind) => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServerOn(kind);
  });
  afterAll(() => server?.stop());

  const post = (body: unknown, headers: Record<string, string> = jsonHeaders) =>
    fetch(`${server.url}/agents`, {
      method: "POST",
      headers,
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  const list = (query = "") => fetch(`${server.url}/agents${query}`, { headers: admin });

  describe("GET /health", () => {
    it("answers 200 with the database checked", async () => {
      const response = await fetch(`${server.url}/health`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      const body = await response.json();
      expect(body).toMatchObject({
        status: "healthy",
        database: "ok",
        database_kind: kind,
        provider: "echo",
      });
      expect(body.version).toMatch(/^\d+\.\d+\.\d+/);
      expect(Number.isInteger(body.uptime_s)).toBe(true);
    });

    it("refuses other methods with 405 and Allow", async () => {
      const response = await fetch(`${server.url}/health`, { method: "POST" });
      await expectProblem(response, 405, "method_not_allowed");
      expect(response.headers.get("allow")).toBe("GET");
    });
  });

  describe("POST /agents", () => {
    it("creates with 201, updates with 200, keeping omitted fields", async () => {
      const created = await post({
        aid: "support-bot",
        name: "Support",
        prompt: "You help customers.",
        temperature: 0.4,
        autonomous_minutes: 30,
        quota: { message_limit_daily: 20 },
      });
      expect(created.status).toBe(201);
      expect(created.headers.get("content-type")).toMatch(/^application\/json/);
      const agent = await created.json();
      expect(agent).toMatchObject({
        aid: "support-bot",
        name: "Support",
        quota: { message_limit_daily: 20 },
      });

      const updated = await post({ id: "support-bot", temperature: 0.9 });
      expect(updated.status).toBe(200);
      expect(await updated.json()).toMatchObject({
        name: "Support",
        prompt: "You help customers.",
        temperature: 0.9,
        autonomous_minutes: 30,
        quota: { message_limit_daily: 20 },
        created_at: agent.created_at,
      });
    });

    it("answers 400 'Invalid agent ID format' for bad and reserved IDs", async () => {
      for (const aid of ["Bad ID", "a", "9lives", "x".repeat(68), "health", "dashboard", 42]) {
        const body = await expectProblem(await post({ aid }), 400, "invalid_agent_id");
        expect(body.detail).toMatch(/^Invalid agent ID format/);
      }
    });

    it("answers 400 with one entry per invalid field", async () => {
      const body = await expectProblem(
        await post({
          aid: "fields",
          temperature: "hot",
          autonomous_minutes: 0,
          autonomous_enabled: "yes",
          quota: { message_limit_daily: -1 },
          nickname: "x",
        }),
        400,
        "validation_failed",
      );
      expect(body.errors.map((e: { field: string }) => e.field).sort()).toEqual(
        [
          "autonomous_enabled",
          "autonomous_minutes",
          "nickname",
          "quota.message_limit_daily",
          "temperature",
        ].sort(),
      );
    });

    it("requires autonomous_prompt when autonomous mode is enabled", async () => {
      const body = await expectProblem(
        await post({ aid: "lazy", autonomous_enabled: true }),
        400,
        "validation_failed",
      );
      expect(body.errors).toEqual([
        { field: "autonomous_prompt", detail: "is required when autonomous_enabled is true" },
      ]);
      const ok = await post({
        aid: "lazy",
        autonomous_enabled: true,
        autonomous_prompt: "Check the queue.",
      });
      expect(ok.status).toBe(201);
    });

    it("refuses malformed, empty, non-object and non-JSON bodies clearly", async () => {
      await expectProblem(await post('{"aid": "x",'), 400, "malformed_json");
      await expectProblem(await post(""), 400, "malformed_json");
      await expectProblem(await post("[1,2]"), 400, "validation_failed");
      await expectProblem(await post("null"), 400, "validation_failed");
      await expectProblem(
        await post("aid=x", { ...admin, "content-type": "application/x-www-form-urlencoded" }),
        415,
        "unsupported_media_type",
      );
    });

    it("refuses bodies over 64 KiB with 413, with or without a Content-Length", async () => {
      const huge = JSON.stringify({ aid: "big", prompt: "x".repeat(70 * 1024) });
      await expectProblem(await post(huge), 413, "payload_too_large");
      // Chunked, so no Content-Length: the size is only known while reading. The server answers
      // 413 and closes before the body is all sent, so a client writing on may hit EPIPE before
      // it reads the answer (fetch then rejects); a raw socket reads the answer whatever happens.
      const answer = await postChunked(server.url, "/agents", 20, 8 * 1024);
      expect(answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(answer).toMatch(/\r\ncontent-type: application\/problem\+json\r\n/i);
      expect(answer).toContain('"code":"payload_too_large"');
    });

    it("needs the admin key: 401 with WWW-Authenticate otherwise", async () => {
      const missing = await post({ aid: "sneaky" }, { "content-type": "application/json" });
      await expectProblem(missing, 401, "unauthorized");
      expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/);
      const wrong = await post(
        { aid: "sneaky" },
        { "content-type": "application/json", authorization: "Bearer nope" },
      );
      const body = await expectProblem(wrong, 401, "unauthorized");
      expect(body.detail).toBe("The admin API key is not valid.");
      expect((await list("?q=sneaky").then((r) => r.json())).agents).toEqual([]);
    });

    it("answers 405 for other methods", async () => {
      const response = await fetch(`${server.url}/agents`, { method: "DELETE", headers: admin });
      await expectProblem(response, 405, "method_not_allowed");
      expect(response.headers.get("allow")).toBe("GET, POST");
    });
  });

  describe("GET /agents", () => {
    beforeAll(async () => {
      for (let i = 0; i < 12; i++) {
        const response = await post({
          aid: `page-${String(i).padStart(2, "0")}`,
          name: i === 7 ? "Lucky Seven" : `Page ${i}`,
        });
        expect(response.status).toBe(201);
      }
    });

    it("lists each agent with all ten quota figures, the token counters and the reset times", async () => {
      const response = await list("?q=page-00");
      expect(response.status).toBe(200);
      const { agents, next_cursor } = await response.json();
      expect(next_cursor).toBeNull();
      expect(agents).toHaveLength(1);
      expect(Object.keys(agents[0].quota).sort()).toEqual(
        [
          "autonomous_count_monthly",
          "autonomous_count_total",
          "autonomous_limit_monthly",
          "autonomous_limit_total",
          "daily_resets_at",
          "last_autonomous_at",
          "last_message_at",
          "message_count_daily",
          "message_count_monthly",
          "message_count_total",
          "message_limit_daily",
          "message_limit_monthly",
          "message_limit_total",
          "monthly_resets_at",
          ...["total", "monthly", "daily"].flatMap((period) => [
            `input_tokens_${period}`,
            `output_tokens_${period}`,
            `cost_${period}`,
            `token_limit_${period}`,
          ]),
        ].sort(),
      );
    });

    it("pages with next_cursor until it is null", async () => {
      const seen: string[] = [];
      let query = "?q=page-&limit=5";
      for (let page = 0; page < 10; page++) {
        const body = await (await list(query)).json();
        seen.push(...body.agents.map((a: { aid: string }) => a.aid));
        if (!body.next_cursor) break;
        query = `?q=page-&limit=5&cursor=${encodeURIComponent(body.next_cursor)}`;
      }
      expect(seen).toHaveLength(12);
      expect(new Set(seen).size).toBe(12);
      expect([...seen].sort()).toEqual(seen);
    });

    it("sorts and filters over all agents from the query string, with the total and cursors", async () => {
      const first = await (
        await list("?q=page-&sort=name&order=desc&limit=5&include_total=true&autonomous=off")
      ).json();
      expect(first.total).toBe(12);
      expect(first.prev_cursor).toBeNull();
      // Names "Page 0".."Page 11" and "Lucky Seven", case-insensitively, descending.
      expect(first.agents.map((a: { name: string }) => a.name)).toEqual([
        "Page 9",
        "Page 8",
        "Page 6",
        "Page 5",
        "Page 4",
      ]);
      const second = await (
        await list(
          `?q=page-&sort=name&order=desc&limit=5&autonomous=off&cursor=${encodeURIComponent(first.next_cursor)}`,
        )
      ).json();
      expect(second.total).toBeUndefined();
      const back = await (
        await list(
          `?q=page-&sort=name&order=desc&limit=5&autonomous=off&cursor=${encodeURIComponent(second.prev_cursor)}`,
        )
      ).json();
      expect(back.agents).toEqual(first.agents);
      expect((await (await list("?q=page-&quota=over&include_total=false")).json()).total).toBe(
        undefined,
      );
      expect((await (await list("?q=page-&autonomous=on&include_total=true")).json()).total).toBe(
        0,
      );
      await expectProblem(await list("?sort=price"), 400, "validation_failed");
      await expectProblem(await list("?include_total=yes"), 400, "validation_failed");
      await expectProblem(await list("?quota=full"), 400, "validation_failed");
      // A NUL in the search was a 500 (PostgreSQL cannot take it as text).
      await expectProblem(await list("?q=a%00b"), 400, "validation_failed");
    });

    it("searches by name", async () => {
      const body = await (await list("?q=lucky")).json();
      expect(body.agents.map((a: { aid: string }) => a.aid)).toEqual(["page-07"]);
    });

    it("refuses a bad limit, a bad cursor and a repeated parameter with 400", async () => {
      await expectProblem(await list("?limit=0"), 400, "validation_failed");
      await expectProblem(await list("?limit=abc"), 400, "validation_failed");
      await expectProblem(await list("?cursor=garbage"), 400, "invalid_cursor");
      await expectProblem(await list("?limit=1&limit=2"), 400, "bad_request");
    });

    it("needs the admin key", async () => {
      await expectProblem(await fetch(`${server.url}/agents`), 401, "unauthorized");
    });
  });

  describe("/api/trpc (what the dashboard calls)", () => {
    it("serves the same procedures, with the same admin check and problem details", async () => {
      const listed = await fetch(
        `${server.url}/api/trpc/agents.list?input=${encodeURIComponent('{"limit":1}')}`,
        {
          headers: admin,
        },
      );
      expect(listed.status).toBe(200);
      expect((await listed.json()).result.data.agents).toHaveLength(1);

      const refused = await fetch(`${server.url}/api/trpc/agents.list`);
      expect(refused.status).toBe(401);
      expect((await refused.json()).error.data.problem).toMatchObject({
        status: 401,
        code: "unauthorized",
      });
    });

    it("holds bodies to 64 KiB too", async () => {
      const response = await fetch(`${server.url}/api/trpc/agents.upsert`, {
        method: "POST",
        headers: jsonHeaders,
        body: JSON.stringify({ aid: "big", prompt: "x".repeat(70 * 1024) }),
      });
      await expectProblem(response, 413, "payload_too_large");
    });
  });

  describe("GET /openapi.json", () => {
    it("describes the REST paths in OpenAPI 3.1, with every $ref resolvable", async () => {
      const response = await fetch(`${server.url}/openapi.json`);
      expect(response.status).toBe(200);
      const doc = await response.json();
      expect(doc.openapi).toBe("3.1.0");
      expect(Object.keys(doc.paths)).toEqual(
        expect.arrayContaining([
          "/health",
          "/agents",
          "/{aid}/chat",
          "/agents/{aid}/runs",
          "/v1/deployments/worker/status",
          "/v1/nonce",
        ]),
      );
      expect(
        doc.paths["/agents"].post.requestBody.content["application/json"].schema.properties.aid
          .pattern,
      ).toBe("^[a-z][a-z0-9-]*$");
      const refs = [
        ...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g),
      ].map((m) => m[1]);
      expect(refs.length).toBeGreaterThan(0);
      for (const ref of refs) expect(doc.components.schemas, ref).toHaveProperty(ref as string);
      expect(JSON.stringify(doc)).not.toContain("#/$defs/");
    });
  });
});
