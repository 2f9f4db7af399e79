import { spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase } from "@/db/client";
import { autonomousRuns } from "@/db/schema";
import { createThrowawayPostgres, TEST_DATABASE_URL } from "../helpers/database-kinds";
import { type FakeOpenAi, startFakeOpenAi } from "../helpers/fake-openai";
import { type RunningServer, startServer, TEST_ADMIN_KEY } from "../helpers/server";

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };

type Run = { id: number; outcome: string; reply: string | null; due_at: string };

async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("autonomous runs in the running service", () => {
  let fake: FakeOpenAi;
  let server: RunningServer;

  beforeAll(async () => {
    fake = await startFakeOpenAi();
  });
  afterAll(async () => {
    await server?.stop();
    await fake?.close();
  });

  const start = () =>
    startServer({ LLM_BASE_URL: fake.baseUrl, LLM_MAX_RETRIES: "0", SCHEDULER_TICK_MS: "100" });
  const enable = (aid: string) =>
    fetch(`${server.url}/agents`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({
        aid,
        autonomous_enabled: true,
        autonomous_minutes: 60,
        autonomous_prompt: "Summarise the day.",
      }),
    });
  const runs = async (aid: string): Promise<Run[]> => {
    const response = await fetch(`${server.url}/agents/${aid}/runs`, { headers: admin });
    expect(response.status).toBe(200);
    return (await response.json()).runs;
  };

  it("runs an agent as soon as autonomous mode is enabled, and shows the run with its reply", async () => {
    fake.behave({ kind: "reply", text: "Today was quiet." });
    server = await start();
    expect((await enable("diarist")).status).toBe(201);

    const [run] = await waitFor("the first run", async () => {
      const found = await runs("diarist");
      return found.some((r) => r.outcome !== "running") ? found : undefined;
    });
    expect(run).toMatchObject({ outcome: "succeeded", reply: "Today was quiet." });

    const listed = await fetch(`${server.url}/agents?q=diarist`, { headers: admin }).then((r) =>
      r.json(),
    );
    const agent = listed.agents[0];
    expect(agent.quota).toMatchObject({ autonomous_count_total: 1, autonomous_count_monthly: 1 });
    expect(Date.parse(agent.autonomous_next_run_at) - Date.parse(run?.due_at ?? "")).toBe(
      60 * 60_000,
    );

    expect((await fetch(`${server.url}/agents/nobody/runs`, { headers: admin })).status).toBe(404);
    expect((await fetch(`${server.url}/agents/diarist/runs`)).status).toBe(401);
    await server.stop();
  });

  it("on SIGTERM lets the run in flight finish, then exits cleanly", async () => {
    fake.behave({ kind: "reply", text: "Finished despite the shutdown.", delayMs: 1500 });
    server = await start();
    await enable("slowpoke");
    const inFlight = await waitFor("a run in flight", async () => {
      const found = await runs("slowpoke");
      return found.find((r) => r.outcome === "running");
    });

    expect(await server.signal("SIGTERM")).toBe(0);
    expect(server.output()).toContain("SIGTERM received");
    expect(server.output()).toContain("Agent Service: stopped.");

    // The process is gone: read what it left in its embedded database.
    const database = createDatabase({
      kind: "pglite",
      dataDir: path.join(server.dataDir, "pglite"),
    });
    try {
      const [run] = await database.db
        .select()
        .from(autonomousRuns)
        .where(eq(autonomousRuns.id, inFlight.id));
      expect(run).toMatchObject({ outcome: "succeeded", reply: "Finished despite the shutdown." });
    } finally {
      await database.close();
      await rm(server.dataDir, { recursive: true, force: true });
    }
  });

  it.skipIf(!TEST_DATABASE_URL)(
    "runs the schedule in `npm run worker` while the web instance has SCHEDULER=off",
    async () => {
      fake.behave({ kind: "reply", text: "From the worker." });
      const throwaway = await createThrowawayPostgres();
      server = await startServer({
        DATABASE_URL: throwaway.url,
        SCHEDULER: "off",
        LLM_BASE_URL: fake.baseUrl,
      });
      let workerOutput = "";
      const worker = spawn(
        process.execPath,
        [path.resolve("node_modules/tsx/dist/cli.mjs"), "scripts/worker.ts"],
        {
          env: {
            PATH: process.env.PATH,
            NODE_ENV: "production",
            DATABASE_URL: throwaway.url,
            LLM_BASE_URL: fake.baseUrl,
            ADMIN_API_KEY: TEST_ADMIN_KEY,
            SCHEDULER_TICK_MS: "100",
          },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      worker.stdout?.on("data", (chunk) => {
        workerOutput += chunk;
      });
      worker.stderr?.on("data", (chunk) => {
        workerOutput += chunk;
      });
      const workerExit = new Promise<number | null>((resolve) => worker.once("exit", resolve));
      try {
        await enable("night-shift");
        const [run] = await waitFor("a run by the worker", async () => {
          const found = await runs("night-shift");
          return found.some((r) => r.outcome === "succeeded") ? found : undefined;
        });
        expect(run?.reply).toBe("From the worker.");
        expect(server.output()).not.toContain("scheduler on");
        expect(workerOutput).toContain("scheduler on");
      } finally {
        worker.kill("SIGTERM");
        expect(await workerExit).toBe(0);
        await server.stop();
        await throwaway.drop();
      }
    },
  );
});
