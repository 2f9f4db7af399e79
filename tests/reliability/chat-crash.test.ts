import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createThrowawayPostgres, DATABASE_KINDS } from "../helpers/database-kinds";
import { type FakeOpenAi, startFakeOpenAi } from "../helpers/fake-openai";
import { type RunningServer, startServer, TEST_ADMIN_KEY } from "../helpers/server";

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * kill -9 with chats in flight: their message uses were counted when they opened, and their
 * replies were never delivered. After a restart (PGlite: at once; PostgreSQL: once the chats
 * are older than any live chat can be, LLM_TIMEOUT_MS + 30 s) the count equals what was
 * delivered, no more, no less.
 */
describe.each(DATABASE_KINDS)("chats cut off by kill -9, on %s", (kind) => {
  let fake: FakeOpenAi;
  let env: Record<string, string>;
  let cleanUp: () => Promise<void>;
  const servers: RunningServer[] = [];

  beforeAll(async () => {
    fake = await startFakeOpenAi();
    const dataDir = await mkdtemp(path.join(tmpdir(), "chat-crash-"));
    const database = kind === "postgres" ? await createThrowawayPostgres() : undefined;
    env = {
      DATA_DIR: dataDir,
      ...(database ? { DATABASE_URL: database.url } : {}),
      LLM_BASE_URL: fake.baseUrl,
      LLM_API_KEY: "sk-test",
      LLM_MAX_RETRIES: "0",
      // The bound on a chat's life, and so on how soon a dead process's chats are given back.
      LLM_TIMEOUT_MS: "2000",
      SCHEDULER: "off",
    };
    cleanUp = async () => {
      await database?.drop();
      await rm(dataDir, { recursive: true, force: true });
    };
  });
  afterAll(async () => {
    for (const server of servers) await server.stop();
    await fake?.close();
    await cleanUp?.();
  });

  it("gives back the uses of the chats in flight, and counts the delivered ones exactly", async () => {
    const first = await startServer(env);
    servers.push(first);
    const created = await fetch(`${first.url}/agents`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ aid: "crashy", rate_limit_rpm: null }),
    });
    expect(created.status).toBe(201);

    fake.behave({ kind: "reply", text: "delivered" });
    let delivered = 0;
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${first.url}/crashy/chat?q=before-${i}`);
      if (response.status === 200 && (await response.text()) === "delivered") delivered++;
    }
    expect(delivered).toBe(3);

    // Ten chats that the model never answers, then the process dies under them.
    fake.behave({ kind: "hang" });
    const inFlight = Array.from({ length: 10 }, (_, i) =>
      fetch(`${first.url}/crashy/chat?q=cut-${i}`).then(
        (response) => response.status,
        () => "cut" as const,
      ),
    );
    // Waits until all ten are at the model (long enough for a loaded machine; it is no bound).
    for (let i = 0; i < 600 && fake.inFlight() < 10; i++) await sleep(50);
    expect(fake.inFlight()).toBe(10);
    await first.signal("SIGKILL");
    expect(await Promise.all(inFlight)).toEqual(Array(10).fill("cut"));

    fake.behave({ kind: "reply", text: "delivered" });
    const second = await startServer(env);
    servers.push(second);
    const counted = async () =>
      (await (await fetch(`${second.url}/agents?q=crashy`, { headers: admin })).json()).agents[0]
        .quota.message_count_total as number;
    // PGlite gives them back as it starts; PostgreSQL once they are older than 2 s + 30 s
    // (another instance might still be serving them until then).
    const deadline = Date.now() + 60_000;
    let seen = await counted();
    while (seen !== delivered && Date.now() < deadline) {
      await sleep(500);
      seen = await counted();
    }
    console.info(
      `chat crash on ${kind}: 10 chats cut by kill -9, ${delivered} delivered before; counted ${seen} after restart`,
    );
    expect(seen).toBe(delivered);
    // And the service goes on counting exactly.
    expect((await fetch(`${second.url}/crashy/chat?q=after`)).status).toBe(200);
    expect(await counted()).toBe(delivered + 1);
  }, 120_000);
});
