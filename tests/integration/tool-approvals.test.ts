import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/rows";
import { parseAgentKey } from "@/server/agent-keys";
import type { Caller } from "@/server/callers";
import type { ChatEvent } from "@/server/chat";
import { endExpiredTurns } from "@/server/frame/housekeeping";
import { fixedClock } from "@/server/kit/clock";
import { sweepReservations } from "@/server/quota";
import { sweepInterruptedRuns } from "@/server/runs";
import { callerFor, problemOf } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";
import { useFakeOpenAi } from "../helpers/use-fake-openai";
import { LOOPBACK_LISTED, useTools } from "../helpers/use-tools";

const START = "2026-11-29T09:00:00Z";

const withKey = (key: string): Caller => {
  const presented = parseAgentKey(key);
  if (!presented) throw new Error(`not an agent key: ${key}`);
  return { kind: "key", key: presented };
};

/**
 * Issue #48, item 5: tool calls that wait for a person. The model (the fake, over the real
 * protocol) asks for a gated tool; the turn pauses in PostgreSQL or PGlite, keeps its message
 * reservation, and goes on when the last call is decided: counted once, the denial's reason told
 * to the model, refused to callers who may not decide, given back when nobody decides in time.
 */
describe.each(DATABASE_KINDS)("tool approvals on %s", (kind) => {
  const clock = fixedClock(START);
  const testDatabase = useTestDatabase(kind, { clock, start: START });
  const fake = useFakeOpenAi("Hello from the fake model.");
  const { server, runtime, caller, agent } = useTools(testDatabase, fake, clock);
  const as = (who: Caller, model = runtime()) =>
    callerFor(testDatabase().db, {
      clock,
      model,
      admin: false,
      caller: who,
      config: undefined,
    });
  const gatedAgent = (aid: string, gated: string[] = ["add"]) =>
    agent(aid, {
      chat_access: "key",
      mcp_servers: [{ name: "calc", url: server().url, approval_required_tools: gated }],
    });
  const quotaOf = async (aid: string) => (await caller().agents.get({ aid })).quota;
  const count = async (query: ReturnType<typeof sql>) =>
    rowsOf<{ n: number }>(await testDatabase().db.execute(query))[0]?.n;

  it("pauses a JSON chat at a gated call, lists it, and goes on when approved: counted once", async () => {
    const model = runtime();
    await gatedAgent("payer");
    const key = (await caller().agentKeys.create({ aid: "payer", name: "app" })).key;
    await caller().webhooks.create({
      url: "https://hooks.example.com/approvals",
      events: ["tool_call.approval_requested"],
    });
    fake().behave(
      { kind: "tools", calls: [{ name: "add", arguments: { a: 2, b: 3 }, id: "c1" }] },
      { kind: "reply", text: "The sum is 5." },
    );
    const paused = await as(withKey(key), model).chat.send({ aid: "payer", q: "2+3?" });
    expect(paused).toMatchObject({
      status: "requires_approval",
      approvals: [{ server: "calc", tool: "add", arguments: { a: 2, b: 3 } }],
      tool_calls: [],
    });
    expect(server().calls).toEqual([]);
    // The message is held, not yet counted as delivered, and no exchange is stored.
    expect((await quotaOf("payer")).message_count_total).toBe(1);
    expect((await caller().threads.list({ aid: "payer" })).threads).toEqual([]);
    expect(
      await count(sql`SELECT count(*)::int AS n FROM webhook_deliveries
        WHERE event_type = 'tool_call.approval_requested'`),
    ).toBe(1);

    const id = paused.approvals[0]?.id as string;
    const listed = await as(withKey(key)).approvals.list({ aid: "payer" });
    expect(listed.approvals).toMatchObject([{ id, tool: "add", via: "chat" }]);
    expect((await caller().approvals.list({ aid: "payer" })).approvals).toHaveLength(1);

    // Another key of the agent neither sees nor decides it.
    const other = (await caller().agentKeys.create({ aid: "payer", name: "other" })).key;
    expect((await as(withKey(other)).approvals.list({ aid: "payer" })).approvals).toEqual([]);
    expect(
      await problemOf(
        as(withKey(other)).approvals.decide({ aid: "payer", id, decision: "approve" }),
      ),
    ).toMatchObject({ status: 404 });

    // While the agent is paused, the admin still sees the call, and nobody may make it go on.
    await caller().agents.upsert({ aid: "payer", paused: true } as never);
    expect((await caller().approvals.list({ aid: "payer" })).approvals).toHaveLength(1);
    expect(
      await problemOf(
        as(withKey(key), model).approvals.decide({ aid: "payer", id, decision: "approve" }),
      ),
    ).toMatchObject({ status: 403, code: "agent_paused" });
    await caller().agents.upsert({ aid: "payer", paused: false } as never);
    const decided = await as(withKey(key), model).approvals.decide({
      aid: "payer",
      id,
      decision: "approve",
    });
    expect(decided).toMatchObject({
      status: "completed",
      reply: { status: "completed", reply: "The sum is 5.", approvals: [] },
    });
    expect(decided.reply?.tool_calls).toMatchObject([{ id: "c1", name: "add", result: "5" }]);
    // An agent key's decision is its client's own: a client that is no admin adds no audit rows.
    expect((await caller().audit.list({ action: "tool_call.approved" })).entries).toEqual([]);
    expect(server().calls).toEqual([{ name: "add", arguments: { a: 2, b: 3 } }]);
    expect(fake().requests[1]?.messages.at(-1)).toEqual({
      role: "tool",
      tool_call_id: "c1",
      content: "5",
    });
    expect((await quotaOf("payer")).message_count_total).toBe(1);
    const [thread] = (await caller().threads.list({ aid: "payer" })).threads;
    const { messages } = await caller().threads.messages({
      aid: "payer",
      caller: thread?.caller as string,
      chat_id: thread?.chat_id as string,
    });
    expect(messages.map((m) => [m.role, m.content])).toEqual([
      ["user", "2+3?"],
      ["assistant", "The sum is 5."],
    ]);
    // Decided once: the turn is gone, so again is 404, and nothing waits any more.
    expect(
      await problemOf(as(withKey(key)).approvals.decide({ aid: "payer", id, decision: "deny" })),
    ).toMatchObject({ status: 404 });
    expect(await count(sql`SELECT count(*)::int AS n FROM paused_turns`)).toBe(0);
    expect(await count(sql`SELECT count(*)::int AS n FROM chat_reservations`)).toBe(0);
  });

  it("streams up to the pause, and a denial's reason reaches the model", async () => {
    const model = runtime();
    await gatedAgent("denied", ["*"]);
    fake().behave(
      {
        kind: "tools",
        calls: [
          { name: "lookup", arguments: { key: "a" }, id: "c1" },
          { name: "add", arguments: { a: 1, b: 1 }, id: "c2" },
        ],
      },
      { kind: "reply", text: "I may not." },
    );
    const events: ChatEvent[] = [];
    for await (const event of await caller(model).chat.stream({ aid: "denied", q: "go" }))
      events.push(event);
    expect(events.map((e) => e.type)).toEqual(["start", "tool_call", "tool_call", "done"]);
    const done = events.at(-1) as Extract<ChatEvent, { type: "done" }>;
    expect(done.status).toBe("requires_approval");
    expect(done.approvals.map((a) => a.tool)).toEqual(["lookup", "add"]);
    const [first, second] = done.approvals;
    const waiting = await caller(model).approvals.decide({
      aid: "denied",
      id: first?.id as string,
      decision: "approve",
    });
    expect(waiting).toMatchObject({ status: "waiting", reply: null });
    expect(
      await problemOf(
        caller(model).approvals.decide({
          aid: "denied",
          id: first?.id as string,
          decision: "deny",
        }),
      ),
    ).toMatchObject({ status: 409, detail: "This tool call was already decided." });
    expect(server().calls).toEqual([]);
    const decided = await caller(model).approvals.decide({
      aid: "denied",
      id: second?.id as string,
      decision: "deny",
      reason: "Adding is not allowed today.",
    });
    expect(decided).toMatchObject({ status: "completed", reply: { reply: "I may not." } });
    // The approved call was made, the denied one not; the model was told why, in its order.
    expect(server().calls).toEqual([{ name: "lookup", arguments: { key: "a" } }]);
    expect(fake().requests[1]?.messages.slice(-2)).toEqual([
      { role: "tool", tool_call_id: "c1", content: "value-of-a" },
      {
        role: "tool",
        tool_call_id: "c2",
        content:
          "Error: Not called: the call was denied. The approver's reason: Adding is not allowed today.",
      },
    ]);
    expect((await quotaOf("denied")).message_count_total).toBe(1);
    // The admin's decisions are the team's to know: one entry each, the refused one none.
    const { entries } = await caller().audit.list({ limit: 10 });
    const decisions = entries.filter((e) => e.target.startsWith("tool_call:")).reverse();
    expect(decisions).toMatchObject([
      {
        action: "tool_call.approved",
        actor: "admin-key",
        target: `tool_call:denied/${first?.id}`,
        after: { server: "calc", tool: "lookup", arguments: { key: "a" }, reason: null },
      },
      {
        action: "tool_call.denied",
        target: `tool_call:denied/${second?.id}`,
        after: { tool: "add", reason: "Adding is not allowed today." },
      },
    ]);
  });

  it("gives the message back when nobody decides in time, and refuses callers who may not decide", async () => {
    const model = runtime({ TOOL_APPROVAL_WAIT_S: "60", ...LOOPBACK_LISTED });
    await gatedAgent("waiter");
    await caller().agents.upsert({ aid: "waiter", chat_access: "public" } as never);
    fake().behave({ kind: "tools", calls: [{ name: "add", arguments: { a: 1, b: 2 } }] });
    const anonymous: Caller = { kind: "anonymous", addressHash: "42ab" };
    const paused = await as(anonymous, model).chat.send({ aid: "waiter", q: "1+2?" });
    expect(paused.status).toBe("requires_approval");
    const id = paused.approvals[0]?.id as string;
    // An anonymous caller may not decide its own calls: only the admin or an agent key.
    expect(
      await problemOf(as(anonymous).approvals.decide({ aid: "waiter", id, decision: "approve" })),
    ).toMatchObject({ status: 401, code: "unauthorized" });
    expect(await problemOf(as(anonymous).approvals.list({ aid: "waiter" }))).toMatchObject({
      status: 401,
    });
    expect((await quotaOf("waiter")).message_count_total).toBe(1);

    // Its reservation outlives the chats' sweep, even the one of a start that takes them all;
    // the wait's end gives it back.
    const { db } = testDatabase();
    expect(await sweepReservations(db)).toBe(0);
    expect((await quotaOf("waiter")).message_count_total).toBe(1);
    await endExpiredTurns({ db, clock }, new Date(Date.parse(START) + 59_000));
    expect((await quotaOf("waiter")).message_count_total).toBe(1);
    clock.set("2026-11-29T09:01:01Z");
    expect(
      await problemOf(caller().approvals.decide({ aid: "waiter", id, decision: "approve" })),
    ).toMatchObject({ status: 404 });
    await endExpiredTurns({ db, clock }, clock.now());
    expect((await quotaOf("waiter")).message_count_total).toBe(0);
    expect(await count(sql`SELECT count(*)::int AS n FROM paused_turns`)).toBe(0);
    expect(server().calls).toEqual([]);
  });

  it("pauses a run until approved, then stores its reply and succeeds", async () => {
    const model = runtime();
    await gatedAgent("runner");
    await caller().agents.upsert({ aid: "runner", autonomous_prompt: "Add 4 and 4." } as never);
    fake().behave(
      { kind: "tools", calls: [{ name: "add", arguments: { a: 4, b: 4 }, id: "r1" }] },
      { kind: "reply", text: "8." },
    );
    const run = await caller(model).runs.runNow({ aid: "runner" });
    expect(run).toMatchObject({ outcome: "running" });
    const [waiting] = (await caller().approvals.list({ aid: "runner" })).approvals;
    expect(waiting).toMatchObject({ tool: "add", via: "run" });
    const decided = await caller(model).approvals.decide({
      aid: "runner",
      id: waiting?.id as string,
      decision: "approve",
    });
    expect(decided).toMatchObject({ status: "completed", run_id: run.id, reply: null });
    const { runs } = await caller().runs.list({ aid: "runner" });
    expect(runs[0]).toMatchObject({ outcome: "succeeded", reply: "8." });
  });

  it("fails a run whose call nobody approves in time, saying which, and gives its run back", async () => {
    const model = runtime({ TOOL_APPROVAL_WAIT_S: "30", ...LOOPBACK_LISTED });
    await gatedAgent("forgotten");
    await caller().agents.upsert({ aid: "forgotten", autonomous_prompt: "Add." } as never);
    fake().behave({ kind: "tools", calls: [{ name: "add", arguments: { a: 1, b: 1 } }] });
    const run = await caller(model).runs.runNow({ aid: "forgotten" });
    expect(run.outcome).toBe("running");
    expect((await quotaOf("forgotten")).autonomous_count_total).toBe(1);
    // The stale-run sweep leaves a run that waits for a person alone.
    const { db } = testDatabase();
    expect(await sweepInterruptedRuns({ db, clock }, 0)).toBe(0);
    clock.set("2026-11-29T09:00:31Z");
    await endExpiredTurns({ db, clock }, clock.now());
    const { runs } = await caller().runs.list({ aid: "forgotten" });
    expect(runs[0]).toMatchObject({ outcome: "failed" });
    expect(runs[0]?.error).toMatch(/Not approved in time: the call of 'add' waited/);
    expect((await quotaOf("forgotten")).autonomous_count_total).toBe(0);
    expect(server().calls).toEqual([]);
  });

  it("cancels a run that waits for approval at once: failed as cancelled, its run given back", async () => {
    const model = runtime();
    await gatedAgent("halted");
    await caller().agents.upsert({ aid: "halted", autonomous_prompt: "Add." } as never);
    fake().behave({ kind: "tools", calls: [{ name: "add", arguments: { a: 2, b: 2 } }] });
    const run = await caller(model).runs.runNow({ aid: "halted" });
    expect(run.outcome).toBe("running");
    const cancelled = await caller(model).runs.cancel({ aid: "halted", id: run.id });
    expect(cancelled).toMatchObject({
      outcome: "failed",
      error: "The run was cancelled on request before it ended.",
    });
    expect((await quotaOf("halted")).autonomous_count_total).toBe(0);
    expect((await caller().approvals.list({ aid: "halted" })).approvals).toEqual([]);
    expect(await count(sql`SELECT count(*)::int AS n FROM paused_turns`)).toBe(0);
    // Run now and the cancel are recorded once each; a second cancel changes nothing.
    await caller(model).runs.cancel({ aid: "halted", id: run.id });
    const { entries } = await caller().audit.list({ target: `run:halted/${run.id}` });
    expect(entries.map((e) => [e.action, e.actor])).toEqual([
      ["run.cancelled", "admin-key"],
      ["run.started", "admin-key"],
    ]);
  });
});
