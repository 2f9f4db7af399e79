import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createThrowawayPostgres, DATABASE_KINDS } from "../helpers/database-kinds";
import { type FakeOpenAi, startFakeOpenAi } from "../helpers/fake-openai";
import { startMcpServer, type TestMcpServer } from "../helpers/mcp-server";
import { type RunningServer, startServer, TEST_ADMIN_KEY } from "../helpers/server";

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };

/**
 * kill -9 while turns wait for approvals: they wait in the database, not in the process. After a
 * restart (PGlite gives back every other reservation as it starts) the turns are listed, go on
 * when approved, and each is counted once.
 */
describe.each(DATABASE_KINDS)("turns waiting for approval through kill -9, on %s", (kind) => {
  let fake: FakeOpenAi;
  let mcp: TestMcpServer;
  let env: Record<string, string>;
  let cleanUp: () => Promise<void>;
  const servers: RunningServer[] = [];

  beforeAll(async () => {
    fake = await startFakeOpenAi();
    mcp = await startMcpServer();
    const dataDir = await mkdtemp(path.join(tmpdir(), "approval-crash-"));
    const database = kind === "postgres" ? await createThrowawayPostgres() : undefined;
    env = {
      DATA_DIR: dataDir,
      ...(database ? { DATABASE_URL: database.url } : {}),
      LLM_BASE_URL: fake.baseUrl,
      LLM_API_KEY: "sk-test",
      LLM_MAX_RETRIES: "0",
      SCHEDULER: "off",
      MCP_ALLOWED_HOSTS: new URL(mcp.url).host,
    };
    cleanUp = async () => {
      await database?.drop();
      await rm(dataDir, { recursive: true, force: true });
    };
  });
  afterAll(async () => {
    for (const server of servers) await server.stop();
    await fake?.close();
    await mcp?.close();
    await cleanUp?.();
  });

  it("loses nothing: the turns go on after a restart, counted once each", async () => {
    const first = await startServer(env);
    servers.push(first);
    const created = await fetch(`${first.url}/agents`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({
        aid: "careful",
        rate_limit_rpm: null,
        mcp_servers: [{ name: "calc", url: mcp.url, approval_required_tools: ["*"] }],
      }),
    });
    expect(created.status).toBe(201);
    fake.behave({ kind: "tools", calls: [{ name: "add", arguments: { a: 1, b: 2 } }] });
    const waiting: string[] = [];
    for (let i = 0; i < 5; i++) {
      const answer = await fetch(`${first.url}/careful/chat?q=sum-${i}`, {
        headers: { accept: "application/json", ...admin },
      });
      const body = (await answer.json()) as { status: string; approvals: { id: string }[] };
      expect(body.status).toBe("requires_approval");
      waiting.push(body.approvals[0]?.id as string);
    }
    await first.signal("SIGKILL");

    fake.behave({ kind: "reply", text: "It is 3." });
    const second = await startServer(env);
    servers.push(second);
    const counted = async () =>
      (await (await fetch(`${second.url}/agents/careful`, { headers: admin })).json()).quota
        .message_count_total as number;
    expect(await counted()).toBe(5);
    const listed = await (
      await fetch(`${second.url}/agents/careful/approvals`, { headers: admin })
    ).json();
    expect(listed.approvals.map((a: { id: string }) => a.id).sort()).toEqual([...waiting].sort());
    for (const id of waiting) {
      const decided = await fetch(`${second.url}/agents/careful/approvals/${id}`, {
        method: "POST",
        headers: admin,
        body: JSON.stringify({ decision: "approve" }),
      });
      expect(await decided.json()).toMatchObject({
        status: "completed",
        reply: { reply: "It is 3." },
      });
    }
    expect(mcp.calls).toHaveLength(5);
    expect(await counted()).toBe(5);
    const threads = await (
      await fetch(`${second.url}/agents/careful/threads`, { headers: admin })
    ).json();
    expect(threads.threads[0].message_count).toBe(10);
  }, 120_000);
});
