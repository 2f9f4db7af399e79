import { describe, expect, it } from "vitest";
import { responses } from "@/db/schema";
import { fixedClock } from "@/server/kit/clock";
import {
  askToCancel,
  endResponse,
  eventsAfter,
  failStalledResponses,
  purgeOldResponseEvents,
  recordEvents,
} from "@/server/responses";
import { callerFor, testConfig } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";

const START = "2026-11-29T09:00:00.000Z";
const at = (ms: number) => new Date(new Date(START).getTime() + ms);
const HOUR = 3_600_000;

/**
 * A background response's life in the database, as every instance sees it: events and heartbeat
 * written together, a cancel read back by the next write, an end that does not undo the sweep's,
 * a response whose instance went silent failed, and its events purged a day after it ended.
 */
describe.each(DATABASE_KINDS)("background responses' rows on %s", (kind) => {
  const clock = fixedClock(START);
  const testDatabase = useTestDatabase(kind, { clock, start: START });
  const begin = async (id: string) => {
    const db = testDatabase().db;
    await callerFor(db, { clock, config: testConfig() })
      .agents.create({ aid: "background" })
      .catch(() => {});
    await db.insert(responses).values({
      id,
      aid: "background",
      caller: "admin",
      input: [{ role: "user", text: "hi" }],
      outputText: "",
      inputTokens: 0,
      outputTokens: 0,
      metadata: {},
      settings: {},
      createdAt: at(0),
      status: "in_progress",
      background: true,
      heartbeatAt: at(0),
      eventsKept: true,
    });
  };
  const event = (seq: number) => ({ seq, data: `{"type":"t","sequence_number":${seq}}` });

  it("writes events with the heartbeat, and reads a cancel asked meanwhile", async () => {
    const { db } = testDatabase();
    await begin("resp_a");
    expect(await recordEvents(db, "resp_a", [event(0), event(1)], at(100))).toBe(false);
    expect(await askToCancel(db, "resp_a", undefined, at(150))).toBe(true);
    expect(await recordEvents(db, "resp_a", [], at(200))).toBe(true);
    expect(await eventsAfter(db, "resp_a", 0, 10)).toEqual({
      status: "in_progress",
      events: [event(1)],
    });
    await endResponse(db, "resp_a", {
      status: "cancelled",
      now: at(300),
      error: null,
      reply: undefined,
    });
    expect(await askToCancel(db, "resp_a", undefined, at(400))).toBe(false);
    expect((await eventsAfter(db, "resp_a", -1, 10)).status).toBe("cancelled");
    expect(await eventsAfter(db, "nobody", -1, 10)).toEqual({ status: undefined, events: [] });
  });

  it("fails a response whose instance went silent, and a late end leaves it failed", async () => {
    const { db } = testDatabase();
    await begin("resp_b");
    await recordEvents(db, "resp_b", [event(0)], at(10_000));
    expect(await failStalledResponses(db, at(39_000))).toEqual([]);
    expect(await failStalledResponses(db, at(41_000))).toEqual(["resp_b"]);
    await endResponse(db, "resp_b", {
      status: "completed",
      now: at(42_000),
      error: null,
      reply: { text: "late", usage: { input_tokens: 1, output_tokens: 1 } },
    });
    expect((await eventsAfter(db, "resp_b", -1, 10)).status).toBe("failed");
  });

  it("purges the events of responses ended a day ago, not of those running or ended since", async () => {
    const { db } = testDatabase();
    for (const id of ["resp_old", "resp_recent", "resp_running"]) {
      await begin(id);
      await recordEvents(db, id, [event(0), event(1)], at(0));
    }
    const none = { error: null, reply: undefined };
    await endResponse(db, "resp_old", { status: "completed", now: at(HOUR), ...none });
    await endResponse(db, "resp_recent", { status: "completed", now: at(20 * HOUR), ...none });
    await purgeOldResponseEvents(db, at(26 * HOUR));
    const kept = async (id: string) => (await eventsAfter(db, id, -1, 10)).events.length;
    expect([await kept("resp_old"), await kept("resp_recent"), await kept("resp_running")]).toEqual(
      [0, 2, 2],
    );
  });
});
