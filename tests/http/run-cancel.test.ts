import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { DATABASE_KINDS } from "../helpers/database-kinds";
import type { FakeOpenAi } from "../helpers/fake-openai";
import { type ModelServer, startModelServer, startOtherInstance } from "../helpers/model-server";
import { type RunningServer, sendAsAdmin } from "../helpers/server";

/**
 * POST /agents/{aid}/runs/{id}/cancel: a run in flight, cancelled through any instance (on
 * PostgreSQL, the other of two on one database), stops its model call and ends failed, saying it
 * was cancelled, its use of the autonomous quota given back.
 */
describe.each(DATABASE_KINDS)("cancelling a run on %s", (kind) => {
  let running: ModelServer | undefined;
  let server: RunningServer;
  let other: RunningServer | undefined;
  let fake: FakeOpenAi;

  beforeAll(async () => {
    running = await startModelServer(kind, {
      LLM_MAX_RETRIES: "0",
      SCHEDULER: "off",
      ...(kind === "postgres" ? { WEB_CONCURRENCY: "1" } : {}),
    });
    ({ server, fake } = running);
    other = await startOtherInstance(running);
  });
  afterAll(async () => {
    await other?.stop();
    await running?.stop();
  });

  it("stops the model call, ends the run failed as cancelled, and gives its use back", async () => {
    const canceller = other ?? server;
    const made = await sendAsAdmin(server, "POST", "/agents", {
      aid: "runner",
      autonomous_prompt: "Summarise the day.",
    });
    expect(made.status).toBe(201);
    fake.behave({ kind: "hang" });
    const ran = sendAsAdmin(server, "POST", "/agents/runner/runs");
    await vi.waitFor(() => expect(fake.inFlight()).toBe(1), { timeout: 10_000 });
    const listed = await sendAsAdmin(canceller, "GET", "/agents/runner/runs");
    const [inFlight] = listed.json.runs;
    expect(inFlight).toMatchObject({ outcome: "running" });
    const abandoned = fake.abandoned();
    const cancelled = await sendAsAdmin(
      canceller,
      "POST",
      `/agents/runner/runs/${inFlight.id}/cancel`,
    );
    expect(cancelled.status).toBe(200);
    expect(cancelled.json).toMatchObject({
      id: inFlight.id,
      outcome: "failed",
      error: expect.stringMatching(/cancelled on request/),
    });
    await vi.waitFor(() => expect(fake.abandoned()).toBe(abandoned + 1));
    expect((await ran).json).toMatchObject({ id: inFlight.id, outcome: "failed" });
    const agent = await sendAsAdmin(canceller, "GET", "/agents/runner");
    expect(agent.json.quota.autonomous_count_total).toBe(0);
    // An ended run is answered as it is; another agent's run, or none, is not found.
    const again = await sendAsAdmin(server, "POST", `/agents/runner/runs/${inFlight.id}/cancel`);
    expect(again.json).toMatchObject({ outcome: "failed" });
    await sendAsAdmin(server, "POST", "/agents", { aid: "stranger" });
    expect(
      (await sendAsAdmin(server, "POST", `/agents/stranger/runs/${inFlight.id}/cancel`)).status,
    ).toBe(404);
    expect((await sendAsAdmin(server, "POST", "/agents/runner/runs/0/cancel")).status).toBe(400);
    const anonymous = await fetch(`${server.url}/agents/runner/runs/${inFlight.id}/cancel`, {
      method: "POST",
    });
    expect(anonymous.status).toBe(401);
    // The run now and its cancel, each recorded once: the second cancel changed nothing.
    const audit = await sendAsAdmin(
      server,
      "GET",
      `/audit?target=${encodeURIComponent(`run:runner/${inFlight.id}`)}`,
    );
    expect(audit.json.entries.map((e: { action: string }) => e.action)).toEqual([
      "run.cancelled",
      "run.started",
    ]);
    expect(audit.json.entries[0]).toMatchObject({
      actor: "admin-key",
      request_id: expect.any(String),
    });
  });
});
