import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createThrowawayPostgres, DATABASE_KINDS } from "../helpers/database-kinds";
import { type FakeOpenAi, startFakeOpenAi } from "../helpers/fake-openai";
import { type RunningServer, sendAsAdmin, startServer } from "../helpers/server";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * kill -9 under a background response: it ends `failed`, saying why, its message given back, and
 * a client following its stream sees the stream end rather than wait for ever. PostgreSQL: the
 * other instance fails it once its heartbeat is 30 s old (and gives back the message once the
 * chat is older than any live one, LLM_TIMEOUT_MS + 30 s). PGlite: the restart does both at once.
 */
describe.each(DATABASE_KINDS)("a background response cut off by kill -9, on %s", (kind) => {
  let fake: FakeOpenAi;
  let env: Record<string, string>;
  let cleanUp: () => Promise<void>;
  const servers: RunningServer[] = [];

  beforeAll(async () => {
    fake = await startFakeOpenAi();
    const dataDir = await mkdtemp(path.join(tmpdir(), "background-crash-"));
    const database = kind === "postgres" ? await createThrowawayPostgres() : undefined;
    env = {
      DATA_DIR: dataDir,
      ...(database ? { DATABASE_URL: database.url, WEB_CONCURRENCY: "1" } : {}),
      LLM_BASE_URL: fake.baseUrl,
      LLM_API_KEY: "sk-test",
      LLM_MAX_RETRIES: "0",
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

  const start = async () => {
    const server = await startServer(env);
    servers.push(server);
    return server;
  };
  const client = (server: RunningServer) =>
    new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "anonymous", maxRetries: 0 });

  it("fails it, says why, ends its followers' streams, and gives its message back", async () => {
    const first = await start();
    // On PostgreSQL the other instance is up beside it; on PGlite it is the next start.
    const second = kind === "postgres" ? await start() : undefined;
    const made = await sendAsAdmin(first, "POST", "/agents", { aid: "crashy" });
    expect(made.status).toBe(201);
    fake.behave({ kind: "hang" });
    const begun = await client(first).responses.create({
      model: "crashy",
      input: "Never answered.",
      background: true,
    });
    for (let i = 0; i < 600 && fake.inFlight() < 1; i++) await sleep(50);
    expect(fake.inFlight()).toBe(1);
    // On PostgreSQL a client follows it through the other instance, from what was written.
    const types: string[] = [];
    const followed = second
      ? (async () => {
          const stream = await client(second).responses.retrieve(begun.id, { stream: true });
          for await (const event of stream) types.push(event.type);
        })()
      : undefined;
    for (let i = 0; second && i < 600 && types.length < 2; i++) await sleep(50);
    await first.signal("SIGKILL");
    const survivor = second ?? (await start());
    if (followed) {
      await followed;
      expect(types).toEqual(["response.created", "response.in_progress"]);
    }
    const read = async () => client(survivor).responses.retrieve(begun.id);
    for (let i = 0; i < 900 && (await read()).status === "in_progress"; i++) await sleep(100);
    expect(await read()).toMatchObject({
      status: "failed",
      error: { code: "server_error", message: expect.stringMatching(/stopped before it ended/) },
    });
    const count = async () =>
      (await (await sendAsAdmin(survivor, "GET", "/agents/crashy")).json).quota.message_count_total;
    for (let i = 0; i < 900 && (await count()) !== 0; i++) await sleep(100);
    expect(await count()).toBe(0);
  }, 150_000);
});
