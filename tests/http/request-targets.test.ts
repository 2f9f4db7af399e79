import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type RunningServer, startServer, TEST_ADMIN_KEY } from "../helpers/server";

/**
 * Request targets that are not a path (RFC 9112, section 3.2), on a raw socket: `OPTIONS *`
 * says what the server takes, an absolute URI for this host is its path, and anything else is a
 * 400 problem with the security headers: no 500, no stack trace, no redirect to another host.
 */

/** Sends one request as written; resolves with the status, the headers and the body. */
function raw(base: string, requestLine: string, host?: string, extra = "") {
  const { hostname, port } = new URL(base);
  return new Promise<{ status: number; headers: Record<string, string>; body: string }>(
    (resolve, reject) => {
      let received = "";
      const socket = connect(Number(port), hostname, () =>
        socket.write(
          `${requestLine}\r\n${host === "" ? "" : `Host: ${host ?? `${hostname}:${port}`}\r\n`}${extra}Connection: close\r\n\r\n`,
        ),
      );
      socket.setEncoding("utf8");
      socket.on("data", (data) => {
        received += data;
      });
      socket.on("error", reject);
      socket.on("close", () => {
        const [head = "", ...rest] = received.split("\r\n\r\n");
        const [statusLine = "", ...lines] = head.split("\r\n");
        const headers = Object.fromEntries(
          lines.map((line) => [
            line.slice(0, line.indexOf(":")).toLowerCase(),
            line.slice(line.indexOf(":") + 1).trim(),
          ]),
        );
        resolve({ status: Number(statusLine.split(" ")[1]), headers, body: rest.join("\r\n\r\n") });
      });
    },
  );
}

describe("request targets that are not a path", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.stop());

  it("answers OPTIONS * with the methods the service takes", async () => {
    const answer = await raw(server.url, "OPTIONS * HTTP/1.1");
    expect(answer.status).toBe(204);
    expect(answer.headers.allow).toContain("GET");
    expect(answer.headers["x-content-type-options"]).toBe("nosniff");
    expect(answer.headers["x-request-id"]).toBeTruthy();
  });

  it("refuses * with another method, and another host's absolute URI, as problems", async () => {
    for (const line of [
      "GET * HTTP/1.1",
      "GET http://evil.example/agents HTTP/1.1",
      "GET evil.example:80 HTTP/1.1",
    ]) {
      const answer = await raw(server.url, line);
      expect(answer.status, line).toBe(400);
      expect(answer.headers["content-type"], line).toBe("application/problem+json");
      expect(answer.headers.location, line).toBeUndefined();
      expect(answer.headers["x-frame-options"], line).toBe("DENY");
      expect(JSON.parse(answer.body).detail, line).toMatch(/^[A-Z].*\.$/);
      expect(answer.body, line).not.toContain("    at ");
    }
  });

  it("takes an absolute URI naming this host as its path", async () => {
    const { host } = new URL(server.url);
    const answer = await raw(server.url, `GET http://${host}/health/live HTTP/1.1`);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ status: "live" });
  });

  it("logs a client that hangs up mid-upload as its leaving, not as the database failing", async () => {
    const { hostname, port } = new URL(server.url);
    await new Promise<void>((resolve) => {
      const socket = connect(Number(port), hostname, () => {
        socket.write(
          `POST /agents HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${TEST_ADMIN_KEY}\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n{"aid":"half`,
        );
        setTimeout(() => socket.resetAndDestroy(), 200);
      });
      socket.on("error", () => {});
      socket.on("close", () => resolve());
    });
    await vi.waitFor(
      () => expect(server.output()).toMatch(/"method":"POST","route":"\/agents","status":499/),
      {
        timeout: 5000,
      },
    );
    expect(server.output()).not.toMatch(/"level":"error"/);
    expect(server.output()).not.toContain("database_unavailable");
  });

  it("answers what Node.js would refuse itself (no Host, an Expect it cannot meet) with the headers", async () => {
    const noHost = await raw(server.url, "GET /health/live HTTP/1.1", "");
    const expecting = await raw(
      server.url,
      "GET /health/live HTTP/1.1",
      undefined,
      "Expect: 200-ok\r\n",
    );
    for (const [answer, status] of [
      [noHost, 400],
      [expecting, 417],
    ] as const) {
      expect(answer.status).toBe(status);
      expect(answer.headers["content-type"]).toBe("application/problem+json");
      expect(answer.headers["x-frame-options"]).toBe("DENY");
      expect(answer.headers["x-request-id"]).toBeTruthy();
      expect(JSON.parse(answer.body).detail).toMatch(/^[A-Z].*\.$/);
    }
  });

  it("puts the request's id on what Next.js answers itself: redirects, pages, OPTIONS", async () => {
    for (const [method, path] of [
      ["GET", "/agents/"],
      ["GET", "/no-such-page"],
      ["OPTIONS", "/dashboard"],
    ]) {
      const answer = await fetch(`${server.url}${path}`, {
        method,
        redirect: "manual",
        headers: { "x-request-id": "next-own-1" },
      });
      expect(answer.headers.get("x-request-id"), `${method} ${path}`).toBe("next-own-1");
      await answer.arrayBuffer();
    }
  });
});
