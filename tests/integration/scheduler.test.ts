import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { autonomousRuns } from "@/db/schema";
import { fixedClock } from "@/server/kit/clock";
import type { ModelRuntime } from "@/server/model-call";
import { createModelRuntime } from "@/server/model-call";
import { claimDueRuns, executeRun, Scheduler, sweepInterruptedRuns } from "@/server/runs";
import { callerFor, problemOf, testConfig } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";
import { useFakeOpenAi } from "../helpers/use-fake-openai";

const START = "2026-11-21T10:00:00Z";
const MINUTE = 60_000;

describe.each(DATABASE_KINDS)("autonomous runs on %s", (kind) => {
  const clock = fixedClock(START);
  const testDatabase = useTestDatabase(kind, { clock, start: START });
  const fakeEndpoint = useFakeOpenAi("Done.");

  const echo = () => createModelRuntime(testConfig());
  const openAi = (env: Record<string, string> = {}) =>
    createModelRuntime(
      testConfig({ LLM_BASE_URL: fakeEndpoint().baseUrl, LLM_MAX_RETRIES: "0", ...env }),
    );
  const schedulerWith = (chat: ModelRuntime = echo()) =>
    new Scheduler(
      { db: testDatabase().db, clock, model: chat },
      { tickMs: 1000, batchSize: 10, concurrency: 8 },
    );
  const admin = (chat?: ModelRuntime) => callerFor(testDatabase().db, { clock, model: chat });
  const autonomousAgent = (aid: string, fields: Record<string, unknown> = {}) =>
    admin().agents.upsert({
      aid,
      autonomous_enabled: true,
      autonomous_minutes: 5,
      autonomous_prompt: "Check the queue.",
      ...fields,
    } as { aid: string });
  const runsOf = async (aid: string) =>
    (await admin().runs.list({ aid, limit: 500 })).runs.slice().reverse();

  /** Ticks once a simulated minute for `minutes` minutes, letting each tick's runs finish. */
  async function simulate(scheduler: Scheduler, minutes: number) {
    for (let minute = 0; minute < minutes; minute++) {
      await scheduler.tick();
      await scheduler.idle();
      clock.advance(MINUTE);
    }
  }

  it("runs an agent every 5 minutes exactly 12 times in an hour, first at its first tick", async () => {
    await autonomousAgent("every-five");
    await simulate(schedulerWith(), 60);
    const runs = await runsOf("every-five");
    expect(runs).toHaveLength(12);
    expect(runs.map((r) => r.due_at)).toEqual(
      Array.from({ length: 12 }, (_, i) =>
        new Date(Date.parse(START) + i * 5 * MINUTE).toISOString(),
      ),
    );
    expect(new Set(runs.map((r) => r.outcome))).toEqual(new Set(["succeeded"]));
    expect(runs.every((r) => r.reply?.startsWith("echo: Check the queue."))).toBe(true);
  });

  it("talks in its own thread, with the earlier runs as history", async () => {
    await autonomousAgent("threaded");
    // A neighbour on the same schedule, claimed in the same batches: its thread is its own.
    await autonomousAgent("neighbour");
    await simulate(schedulerWith(), 11);
    for (const aid of ["threaded", "neighbour"]) {
      expect((await runsOf(aid)).map((r) => r.reply)).toEqual([
        "echo: Check the queue.",
        "echo: Check the queue. (after 2 earlier messages)",
        "echo: Check the queue. (after 4 earlier messages)",
      ]);
    }
    const { threads } = await admin().threads.list({ aid: "threaded" });
    expect(threads).toEqual([expect.objectContaining({ chat_id: "autonomous", message_count: 6 })]);
  });

  it("gives a run no history with CHAT_HISTORY_MESSAGES=0, and still stores its exchange", async () => {
    await autonomousAgent("forgetful");
    await simulate(
      schedulerWith(createModelRuntime(testConfig({ CHAT_HISTORY_MESSAGES: "0" }))),
      11,
    );
    expect((await runsOf("forgetful")).map((r) => r.reply)).toEqual([
      "echo: Check the queue.",
      "echo: Check the queue.",
      "echo: Check the queue.",
    ]);
    const { threads } = await admin().threads.list({ aid: "forgetful" });
    expect(threads).toEqual([expect.objectContaining({ chat_id: "autonomous", message_count: 6 })]);
  });

  it("stops when disabled and moves the next run when the interval changes, with no restart", async () => {
    const scheduler = schedulerWith();
    await autonomousAgent("changing", { autonomous_minutes: 60 });
    await simulate(scheduler, 10); // ran at 10:00; next due 11:00
    expect(await runsOf("changing")).toHaveLength(1);

    const { agent } = await admin().agents.upsert({ aid: "changing", autonomous_minutes: 5 });
    expect(agent.autonomous_next_run_at).toBe("2026-11-21T10:05:00.000Z"); // already due
    await simulate(scheduler, 10); // 10:10 (catch-up), 10:15
    expect((await runsOf("changing")).map((r) => r.due_at.slice(11, 16))).toEqual([
      "10:00",
      "10:05",
      "10:15",
    ]);

    const off = await admin().agents.upsert({ aid: "changing", autonomous_enabled: false });
    expect(off.agent.autonomous_next_run_at).toBeNull();
    await simulate(scheduler, 30);
    expect(await runsOf("changing")).toHaveLength(3);
  });

  it("uses a changed prompt at the next run", async () => {
    const scheduler = schedulerWith();
    await autonomousAgent("reprompted");
    await simulate(scheduler, 1);
    await admin().agents.upsert({ aid: "reprompted", autonomous_prompt: "Write the report." });
    await simulate(scheduler, 5);
    const runs = await runsOf("reprompted");
    expect(runs.at(-1)?.reply).toMatch(/^echo: Write the report\./);
  });

  it("skips runs past the monthly autonomous quota, and GET /agents shows the counts", async () => {
    await autonomousAgent("thrifty", { quota: { autonomous_limit_monthly: 3 } });
    await simulate(schedulerWith(), 30);
    const runs = await runsOf("thrifty");
    expect(runs.map((r) => r.outcome)).toEqual([
      "succeeded",
      "succeeded",
      "succeeded",
      "skipped",
      "skipped",
      "skipped",
    ]);
    expect(runs[3]?.error).toMatch(/^Monthly autonomous run limit reached for agent 'thrifty'/);
    const listed = (await admin().agents.list({ q: "thrifty" })).agents[0];
    expect(listed?.quota).toMatchObject({ autonomous_count_monthly: 3, autonomous_count_total: 3 });
  });

  it("records a model failure as failed, gives the quota back, and runs the next slot", async () => {
    const chat = openAi();
    await autonomousAgent("flaky");
    fakeEndpoint().behave({ kind: "error", status: 500 }, { kind: "reply", text: "Recovered." });
    await simulate(schedulerWith(chat), 6);
    const runs = await runsOf("flaky");
    expect(runs.map((r) => r.outcome)).toEqual(["failed", "succeeded"]);
    expect(runs[0]?.error).toBe("The model provider failed (HTTP 500).");
    expect(runs[1]?.reply).toBe("Recovered.");
    // The fake reports 10 tokens in and 5 out; a failed run has none.
    expect(runs.map((r) => r.usage)).toEqual([
      null,
      { input_tokens: 10, output_tokens: 5, estimated: false, cost: null },
    ]);
    expect((await admin().agents.get({ aid: "flaky" })).quota.autonomous_count_total).toBe(1);
  });

  it("marks a run left behind by a dead instance as failed and gives its quota back", async () => {
    await autonomousAgent("orphan");
    // An instance claims the slot (quota reserved, run recorded) and dies before running it.
    const { runs } = await claimDueRuns({ db: testDatabase().db, clock }, 10);
    expect(runs).toHaveLength(1);
    expect((await admin().agents.get({ aid: "orphan" })).quota.autonomous_count_total).toBe(1);

    clock.advance(2 * 60_000 + 60_000 + 1000); // past the stale bound of a 60 s model timeout
    await schedulerWith(createModelRuntime(testConfig({ LLM_TIMEOUT_MS: "60000" }))).tick();
    const [orphan] = await testDatabase()
      .db.select()
      .from(autonomousRuns)
      .where(eq(autonomousRuns.id, runs[0]?.runId as number));
    expect(orphan).toMatchObject({
      outcome: "failed",
      error: expect.stringMatching(/^Interrupted/),
    });
    // Its next slot (10:05) is not due yet at 10:03, so the sweep is all that happened.
    expect((await runsOf("orphan")).map((r) => r.outcome)).toEqual(["failed"]);
    expect((await admin().agents.get({ aid: "orphan" })).quota.autonomous_count_total).toBe(0);
  });

  it("does not let a run the sweeper has failed turn succeeded when its reply comes late", async () => {
    await autonomousAgent("late");
    const { runs } = await claimDueRuns({ db: testDatabase().db, clock }, 10);
    const [claimed] = runs;
    if (!claimed) throw new Error("nothing claimed");
    // Its instance looks dead: the sweeper fails it and gives its quota back...
    clock.advance(3 * MINUTE);
    expect(await sweepInterruptedRuns({ db: testDatabase().db, clock }, 2 * MINUTE)).toBe(1);
    // ...and then the run's reply arrives after all.
    const ctx = { db: testDatabase().db, clock, model: echo() };
    expect(await executeRun(ctx, claimed)).toBe("failed");
    const [run] = await runsOf("late");
    expect(run).toMatchObject({
      outcome: "failed",
      reply: null,
      error: expect.stringMatching(/^Interrupted/),
    });
    expect((await admin().agents.get({ aid: "late" })).quota.autonomous_count_total).toBe(0);
    expect((await admin().threads.list({ aid: "late" })).threads).toEqual([]);
  });

  it("runs an agent now on demand, and summarises its runs", async () => {
    await admin().agents.upsert({ aid: "manual", autonomous_prompt: "Say hi." });
    const run = await admin().runs.runNow({ aid: "manual" });
    expect(run).toMatchObject({ trigger: "manual", outcome: "succeeded", reply: "echo: Say hi." });
    // echo reports no usage: estimated from "You are manual." (15) + "Say hi." (7), and the reply.
    expect(run.usage).toEqual({ input_tokens: 6, output_tokens: 4, estimated: true, cost: null });

    const summary = await admin().runs.summary({ aid: "manual" });
    expect(summary).toMatchObject({
      autonomous_enabled: false,
      next_run_at: null,
      last_run: { id: run.id },
      counts: { succeeded: 1, failed: 0, skipped: 0, running: 0 },
    });

    await admin().agents.upsert({ aid: "silent" });
    expect(await problemOf(admin().runs.runNow({ aid: "silent" }))).toMatchObject({
      status: 409,
    });
    expect(await problemOf(admin().runs.runNow({ aid: "ghost" }))).toMatchObject({
      status: 404,
    });
    expect(
      await problemOf(
        callerFor(testDatabase().db, { admin: false }).runs.runNow({ aid: "manual" }),
      ),
    ).toMatchObject({ status: 401 });
  });

  it("lists the next due time in GET /agents", async () => {
    await autonomousAgent("listed");
    await simulate(schedulerWith(), 1);
    const listed = (await admin().agents.list({ q: "listed" })).agents[0];
    expect(listed?.autonomous_next_run_at).toBe("2026-11-21T10:05:00.000Z");
  });

  it("runs at each occurrence of its cron expression in its zone, and once after downtime", async () => {
    const scheduler = schedulerWith();
    const { agent } = await autonomousAgent("on-the-quarter", {
      autonomous_cron: "*/15 * * * *",
      autonomous_timezone: "europe/berlin",
    });
    expect(agent).toMatchObject({
      autonomous_cron: "*/15 * * * *",
      autonomous_timezone: "Europe/Berlin",
      // Not at once, as an interval would: at the next occurrence.
      autonomous_next_run_at: "2026-11-21T10:15:00.000Z",
    });
    await simulate(scheduler, 61); // 10:00 to 11:00 inclusive
    expect((await runsOf("on-the-quarter")).map((r) => r.due_at.slice(11, 16))).toEqual([
      "10:15",
      "10:30",
      "10:45",
      "11:00",
    ]);
    // Two hours with no scheduler: the eight occurrences missed give one catch-up run.
    clock.advance(2 * 60 * MINUTE);
    await simulate(scheduler, 1);
    const runs = await runsOf("on-the-quarter");
    expect(runs.map((r) => r.due_at.slice(11, 16))).toEqual([
      "10:15",
      "10:30",
      "10:45",
      "11:00",
      "11:15",
    ]);
    expect(runs.every((r) => r.outcome === "succeeded")).toBe(true);
    const { agent: after } = await admin().agents.upsert({ aid: "on-the-quarter" });
    expect(after.autonomous_next_run_at).toBe("2026-11-21T13:15:00.000Z");
  });

  it("skips an occurrence that comes while the run before it is still going, saying why", async () => {
    await autonomousAgent("slowpoke", { autonomous_cron: "* * * * *" });
    clock.advance(MINUTE); // 10:01, the first occurrence
    const first = await claimDueRuns({ db: testDatabase().db, clock }, 10);
    expect(first.runs).toHaveLength(1);
    clock.advance(MINUTE); // 10:02: the first run has not finished
    const second = await claimDueRuns({ db: testDatabase().db, clock }, 10);
    expect(second).toMatchObject({ runs: [], skipped: 1 });
    const runs = await runsOf("slowpoke");
    expect(runs.map((r) => r.outcome)).toEqual(["running", "skipped"]);
    expect(runs[1]?.error).toBe(
      `The run before it (run ${first.runs[0]?.runId}) was still going when this occurrence came.`,
    );
    // Skipped for that reason, it used no quota; the run going holds one.
    expect((await admin().agents.get({ aid: "slowpoke" })).quota.autonomous_count_total).toBe(1);
    // Once the run has finished, the next occurrence runs.
    await executeRun({ db: testDatabase().db, clock, model: echo() }, first.runs[0] as never);
    clock.advance(MINUTE);
    expect((await claimDueRuns({ db: testDatabase().db, clock }, 10)).runs).toHaveLength(1);
  });

  it("refuses a bad cron expression or zone with 400 naming the field", async () => {
    const refused = (fields: Record<string, unknown>) =>
      problemOf(admin().agents.upsert({ aid: "bad-cron", ...fields } as { aid: string }));
    expect(await refused({ autonomous_cron: "every day at nine" })).toMatchObject({
      status: 400,
      errors: [
        {
          field: "autonomous_cron",
          detail: expect.stringMatching(/^is not a five-field cron expression/),
        },
      ],
    });
    expect(await refused({ autonomous_timezone: "Berlin" })).toMatchObject({
      status: 400,
      errors: [{ field: "autonomous_timezone", detail: expect.stringMatching(/IANA/) }],
    });
  });
});
