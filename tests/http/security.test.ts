import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer, TEST_ADMIN_KEY } from "../helpers/server";

/**
 * The attacks of issue 13 on cookies, framing and paths, as a page of the same site or a
 * script would make them: each is refused, and every answer carries the security headers.
 */
describe("cookies, framing and paths over HTTP", () => {
  let server: RunningServer;
  let cookie: string;

  beforeAll(async () => {
    server = await startServer();
    const signedIn = await fetch(`${server.url}/api/trpc/auth.signInWithKey`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ key: TEST_ADMIN_KEY }),
    });
    cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0] as string;
  });
  afterAll(() => server?.stop());

  const upsert = (headers: Record<string, string>) =>
    fetch(`${server.url}/api/trpc/agents.upsert`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie, ...headers },
      body: JSON.stringify({ aid: "forged-agent" }),
    });

  it("takes no cookie on REST: a page of the same site cannot create agents with the admin's session", async () => {
    // A form post from another port of this host: the browser sends the cookie, no type.
    const posted = await fetch(`${server.url}/agents`, {
      method: "POST",
      headers: { cookie, origin: "http://127.0.0.1:1" },
      body: JSON.stringify({ aid: "forged-agent" }),
    });
    expect(posted.status).toBe(415);
    const withType = await fetch(`${server.url}/agents`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify({ aid: "forged-agent" }),
    });
    expect(withType.status).toBe(401);
    expect((await fetch(`${server.url}/agents`, { headers: { cookie } })).status).toBe(401);
  });

  it("refuses a cookie-authenticated tRPC change from another origin, or with none", async () => {
    for (const origin of ["http://127.0.0.1:1", "http://evil.example", undefined]) {
      const refused = await upsert(origin ? { origin } : {});
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ code: "forbidden" });
    }
    const listed = await fetch(`${server.url}/agents?q=forged-agent`, {
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` },
    });
    expect((await listed.json()).agents).toEqual([]);
    // From the dashboard itself it goes through.
    expect((await upsert({ origin: server.url })).status).toBe(200);
  });

  it("refuses a REST body that does not say it is JSON", async () => {
    for (const type of [undefined, "text/plain", "application/x-www-form-urlencoded"]) {
      const response = await fetch(`${server.url}/agents`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${TEST_ADMIN_KEY}`,
          ...(type ? { "content-type": type } : {}),
        },
        body: JSON.stringify({ aid: "typed" }),
      });
      expect(response.status).toBe(415);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
    }
  });

  it("sends the security headers on pages, REST, tRPC, refusals and unknown paths", async () => {
    for (const path of [
      "/login",
      "/health",
      "/api/trpc/health.check",
      "/agents",
      "/nope",
      "/v1/nope",
      "/%FF/chat",
    ]) {
      const response = await fetch(`${server.url}${path}`);
      await response.arrayBuffer();
      const csp = response.headers.get("content-security-policy") ?? "";
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).toContain("default-src 'self'");
      expect(response.headers.get("x-frame-options"), path).toBe("DENY");
      expect(response.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(response.headers.get("referrer-policy"), path).toBe("strict-origin-when-cross-origin");
    }
    const trpc = await fetch(`${server.url}/api/trpc/health.check`);
    expect(trpc.headers.get("cache-control")).toBe("no-store");
  });

  it("answers a malformed percent-escape with 400 on every path, and unknown API paths with 404 problems", async () => {
    for (const path of [
      "/%FF/chat?q=hi",
      "/agents/%FF/runs",
      "/v1/deployments/%FF",
      "/dashboard/agents/%FF",
      "/api/trpc/%FF",
      "/agents/%E0%A4%A/keys",
    ]) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status, path).toBe(400);
      expect(response.headers.get("content-type"), path).toBe("application/problem+json");
      expect((await response.json()).detail, path).toContain("malformed percent-escape");
    }
    // Under /v1 a path that is no operation of the service's own is OpenAI's: in its form.
    const openAiPath = await fetch(`${server.url}/v1/nope`, { method: "POST" });
    expect(openAiPath.status).toBe(404);
    expect((await openAiPath.json()).error).toMatchObject({ type: "invalid_request_error" });
    for (const path of ["/v1/deployments/1/extra", "/agents/a/b/c", "/api/nope", "/health/x"]) {
      const response = await fetch(`${server.url}${path}`, { method: "POST" });
      expect(response.status, path).toBe(404);
      expect(response.headers.get("content-type"), path).toBe("application/problem+json");
    }
    // An escape that is well formed still works.
    expect((await fetch(`${server.url}/no%20agent/chat?q=hi`)).status).toBe(404);
  });

  const expectSecurityHeaders = (headers: Headers, what: string) => {
    expect(headers.get("content-security-policy") ?? "", what).toContain("frame-ancestors 'none'");
    expect(headers.get("x-frame-options"), what).toBe("DENY");
    expect(headers.get("x-content-type-options"), what).toBe("nosniff");
    expect(headers.get("referrer-policy"), what).toBe("strict-origin-when-cross-origin");
    expect(headers.get("cross-origin-opener-policy"), what).toBe("same-origin");
  };

  const sendMethod = (method: string, path: string, headers: Record<string, string>) =>
    new Promise<Response>((resolve, reject) => {
      const sent = httpRequest(`${server.url}${path}`, { method, headers }, (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on("data", (chunk) => chunks.push(chunk));
        incoming.on("end", () =>
          resolve(
            new Response(Buffer.concat(chunks), {
              status: incoming.statusCode,
              headers: incoming.headers as Record<string, string>,
            }),
          ),
        );
      });
      sent.on("error", reject);
      sent.end();
    });

  it("answers a method no path takes with 405 and Allow, as a problem, on every path", async () => {
    for (const path of ["/health", "/agents", "/some-agent/chat?q=hi", "/dashboard", "/nope"]) {
      for (const method of ["TRACE", "PROPFIND", "PURGE"]) {
        // fetch() refuses TRACE itself: node:http sends any method.
        const response = await sendMethod(method, path, { "x-request-id": "odd-method-1" });
        const what = `${method} ${path}`;
        expect(response.status, what).toBe(405);
        expect(response.headers.get("allow"), what).toBe(
          "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS",
        );
        expect(response.headers.get("content-type"), what).toBe("application/problem+json");
        expect(response.headers.get("x-request-id"), what).toBe("odd-method-1");
        expectSecurityHeaders(response.headers, what);
        expect(await response.json(), what).toMatchObject({
          status: 405,
          code: "method_not_allowed",
          request_id: "odd-method-1",
          detail: expect.stringContaining(`${method} is not a method this service takes`),
        });
      }
    }
    // CONNECT, which Node.js never hands to the request handler, is refused alike.
    const connectAnswer = await raw(
      "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nX-Request-Id: odd-method-2\r\n\r\n",
    );
    expect(connectAnswer).toMatch(/^HTTP\/1\.1 405 /);
    expect(connectAnswer).toMatch(/\r\nallow: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS\r\n/);
    expect(connectAnswer).toMatch(/\r\nx-frame-options: DENY\r\n/);
    expect(connectAnswer).toContain('"request_id":"odd-method-2"');
    // Nothing of it reached the log as an unexpected error.
    expect(server.output()).not.toMatch(/"level":"error"/);
  });

  it("sends the security headers on what Next.js answers itself: a trailing-slash redirect, a page that is not there", async () => {
    const redirected = await fetch(`${server.url}/agents/`, { redirect: "manual" });
    expect(redirected.status).toBe(308);
    expectSecurityHeaders(redirected.headers, "308");
    const missing = await fetch(`${server.url}/no/such/page`);
    await missing.arrayBuffer();
    expect(missing.status).toBe(404);
    expectSecurityHeaders(missing.headers, "404 page");
  });

  /** Sends raw bytes and reads everything the server answers until it closes. */
  const raw = (bytes: string) =>
    new Promise<string>((resolve, reject) => {
      const { port } = new URL(server.url);
      const socket = connect(Number(port), "127.0.0.1");
      let answer = "";
      socket.on("data", (chunk) => {
        answer += chunk;
      });
      socket.on("close", () => resolve(answer));
      socket.on("error", reject);
      socket.write(bytes);
    });

  it("answers what Node.js's HTTP parser refuses (headers too large, a malformed request line) as a problem with the security headers", async () => {
    const huge = await raw(
      `GET /health HTTP/1.1\r\nHost: x\r\nX-Filler: ${"a".repeat(20_000)}\r\n\r\n`,
    );
    const garbled = await raw("GARBAGE\r\n\r\n");
    for (const [answer, status, code] of [
      [huge, 431, "headers_too_large"],
      [garbled, 400, "bad_request"],
    ] as const) {
      const [head = "", body = ""] = answer.split("\r\n\r\n");
      expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      const headers = new Headers(
        head
          .split("\r\n")
          .slice(1)
          .map((line) => {
            const colon = line.indexOf(":");
            return [line.slice(0, colon), line.slice(colon + 1).trim()] as [string, string];
          }),
      );
      expect(headers.get("content-type")).toBe("application/problem+json");
      expectSecurityHeaders(headers, `${status}`);
      expect(JSON.parse(body)).toMatchObject({ status, code });
    }
  });

  it("bounds tRPC batches", async () => {
    const calls = Array.from({ length: 21 }, () => "health.check").join(",");
    const input = encodeURIComponent(
      JSON.stringify(Object.fromEntries(Array.from({ length: 21 }, (_, i) => [i, {}]))),
    );
    const refused = await fetch(`${server.url}/api/trpc/${calls}?batch=1&input=${input}`);
    expect(refused.status).toBe(400);
    const twenty = Array.from({ length: 20 }, () => "health.check").join(",");
    const allowed = await fetch(`${server.url}/api/trpc/${twenty}?batch=1&input=${input}`);
    expect(allowed.status).toBe(200);
  });
});
