import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../helpers/server";

describe("start-up", () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it("generates an admin key at first start, stores it privately, and never logs it off a terminal", async () => {
    server = await startServer({ ADMIN_API_KEY: undefined });
    const file = path.join(server.dataDir, "admin-api-key");
    const key = (await readFile(file, "utf8")).trim();
    expect(key.length).toBeGreaterThanOrEqual(32);
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const withKey = await fetch(`${server.url}/agents`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(withKey.status).toBe(200);
    expect(server.output()).toContain(file);
    expect(server.output()).not.toContain(key);
  });

  it("refuses to start on a wrong setting, naming it", async () => {
    await expect(startServer({ QUOTA_DEFAULT_MESSAGE_LIMIT_DAILY: "-1" })).rejects.toThrow(
      /QUOTA_DEFAULT_MESSAGE_LIMIT_DAILY/,
    );
  });

  it("answers 503 while the database cannot be reached, in the health format and as problems", async () => {
    // Port 9 on loopback: nothing listens, connections are refused at once.
    server = await startServer({ DATABASE_URL: "postgres://nobody@127.0.0.1:9/none" });
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: "unhealthy", database: "unreachable" });

    const agents = await fetch(`${server.url}/agents`, {
      headers: { authorization: "Bearer whatever-key-it-is" },
    });
    expect(agents.status).toBe(503);
    expect(agents.headers.get("content-type")).toBe("application/problem+json");
    expect(agents.headers.get("retry-after")).toBe("5");
    expect(await agents.json()).toMatchObject({ code: "database_unavailable" });
  });
});
