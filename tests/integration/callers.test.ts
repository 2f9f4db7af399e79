import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { chatReservations } from "@/db/schema";
import { parseAgentKey } from "@/server/agent-keys";
import type { Caller } from "@/server/callers";
import { openChat } from "@/server/chat";
import { fixedClock } from "@/server/kit/clock";
import { createModelRuntime } from "@/server/model-call";
import { sweepReservations } from "@/server/quota";
import { callerFor, problemOf, testConfig } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";
import { useFakeOpenAi } from "../helpers/use-fake-openai";

const anonymous = (addressHash: string): Caller => ({ kind: "anonymous", addressHash });
const withKey = (key: string): Caller => {
  const presented = parseAgentKey(key);
  if (!presented) throw new Error(`not an agent key: ${key}`);
  return { kind: "key", key: presented };
};

/** Agent keys, thread owners, rate limits and reservations, on both databases. */
describe.each(DATABASE_KINDS)("chat callers on %s", (kind) => {
  const clock = fixedClock("2026-11-23T12:00:00Z");
  const testDatabase = useTestDatabase(kind, { clock, start: "2026-11-23T12:00:00Z" });
  const fake = useFakeOpenAi("ok");
  const admin = () => callerFor(testDatabase().db, { clock });
  const as = (caller: Caller) =>
    callerFor(testDatabase().db, { clock, admin: false, caller, model: modelOnFake() });
  const modelOnFake = () =>
    createModelRuntime(testConfig({ LLM_BASE_URL: fake().baseUrl, LLM_API_KEY: "sk-test" }));
  const agent = (aid: string, fields: Record<string, unknown> = {}) =>
    admin().agents.upsert({ aid, rate_limit_rpm: null, ...fields } as { aid: string });
  const counted = async (aid: string) =>
    (await admin().agents.get({ aid })).quota.message_count_total;
  /** What the model was given before the question, of the last request. */
  const lastHistory = () =>
    (fake().requests.at(-1)?.messages ?? []).slice(1, -1).map((m) => m.content);

  it("gives each caller its own thread for the same chat_id, and the admin sees them all", async () => {
    await agent("shared-name");
    const keyA = (await admin().agentKeys.create({ aid: "shared-name", name: "app A" })).key;
    const keyB = (await admin().agentKeys.create({ aid: "shared-name", name: "app B" })).key;
    const callers = [withKey(keyA), withKey(keyB), anonymous("1111"), anonymous("2222")];
    for (const [i, caller] of callers.entries()) {
      await as(caller).chat.send({ aid: "shared-name", q: `secret ${i}`, chat_id: "support" });
    }
    for (const [i, caller] of callers.entries()) {
      await as(caller).chat.send({ aid: "shared-name", q: `again ${i}`, chat_id: "support" });
      // The model saw this caller's earlier turn and nobody else's.
      expect(lastHistory()).toEqual([`secret ${i}`, "ok"]);
    }
    const { threads } = await admin().threads.list({ aid: "shared-name" });
    expect(threads).toHaveLength(4);
    expect(threads.every((t) => t.chat_id === "support" && t.message_count === 4)).toBe(true);
    const labels = threads.map((t) => t.caller_label).sort();
    expect(labels).toEqual(["address #1111", "address #2222", "key 'app A'", "key 'app B'"]);
    // Never the address itself: anonymous callers are stored by a keyed hash.
    const anonymousThread = threads.find((t) => t.caller === "addr:1111");
    const { messages } = await admin().threads.messages({
      aid: "shared-name",
      caller: anonymousThread?.caller,
      chat_id: "support",
    });
    expect(messages.map((m) => m.content)).toEqual(["secret 2", "ok", "again 2", "ok"]);
  });

  it("takes chats with a key only from valid keys when chat_access is key, and drops a revoked key at once", async () => {
    await agent("private", { chat_access: "key" });
    const refusedAnonymous = await problemOf(
      as(anonymous("3333")).chat.send({ aid: "private", q: "hi" }),
    );
    expect(refusedAnonymous).toMatchObject({ status: 401, code: "key_required" });
    const created = await admin().agentKeys.create({ aid: "private", name: "mobile" });
    expect(created.key).toMatch(/^ak_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    expect((await as(withKey(created.key)).chat.send({ aid: "private", q: "hi" })).reply).toBe(
      "ok",
    );

    // A key of another agent, and a key with a wrong secret, are not keys of this one.
    await agent("other");
    const otherKey = (await admin().agentKeys.create({ aid: "other", name: "x" })).key;
    const forged = `${created.key.slice(0, -4)}AAAA`;
    for (const key of [otherKey, forged]) {
      const refused = await problemOf(as(withKey(key)).chat.send({ aid: "private", q: "hi" }));
      expect(refused).toMatchObject({ status: 401, code: "invalid_key" });
    }
    const listed = await admin().agentKeys.list({ aid: "private" });
    expect(listed.keys).toEqual([
      {
        id: created.id,
        name: "mobile",
        created_at: created.created_at,
        last_used_at: clock.now().toISOString(),
        expires_at: null,
        expired: false,
        rate_limit_rpm: null,
      },
    ]);
    // The whole secret: being base64url it may hold "_" itself, so splitting on "_" could take a
    // fragment as short as one character, found by chance in a date (a flaky failure seen in CI).
    const secret = created.key.slice(`ak_${created.id}_`.length);
    expect(secret).toHaveLength(43);
    expect(JSON.stringify(listed)).not.toContain(secret);

    await admin().agentKeys.revoke({ aid: "private", id: created.id });
    const revoked = await problemOf(
      as(withKey(created.key)).chat.send({ aid: "private", q: "hi" }),
    );
    expect(revoked).toMatchObject({ status: 401, code: "invalid_key" });
    expect((await admin().agentKeys.list({ aid: "private" })).keys).toEqual([]);
    expect(
      await problemOf(admin().agentKeys.revoke({ aid: "private", id: created.id })),
    ).toMatchObject({
      status: 404,
    });
    // Only the one chat that was admitted counted.
    expect(await counted("private")).toBe(1);
  });

  it("limits chats per caller per minute, uses no quota past the limit, and opens a new window a minute on", async () => {
    await agent("limited", { rate_limit_rpm: 3 });
    const caller = as(anonymous("4444"));
    for (let i = 1; i <= 3; i++) {
      const reply = await caller.chat.send({ aid: "limited", q: `q${i}` });
      expect(reply.rate_limit).toEqual({ limit: 3, remaining: 3 - i, reset_s: 70 - 10 * i });
      clock.advance(10_000);
    }
    const refused = await problemOf(caller.chat.send({ aid: "limited", q: "q4" }));
    expect(refused).toMatchObject({
      status: 429,
      code: "rate_limited",
      retry_after_s: 30,
      rate_limit: { limit: 3, remaining: 0, reset_s: 30 },
    });
    expect(refused.detail).toContain("3 chats a minute from each caller");
    expect(await counted("limited")).toBe(3);
    // Another caller has a window of its own.
    expect((await as(anonymous("5555")).chat.send({ aid: "limited", q: "x" })).reply).toBe("ok");
    // The window opened with the first chat; a minute after it, the caller may chat again.
    clock.advance(30_000);
    const next = await caller.chat.send({ aid: "limited", q: "q5" });
    expect(next.rate_limit).toEqual({ limit: 3, remaining: 2, reset_s: 60 });
    // The admin (the dashboard) is not limited.
    for (let i = 0; i < 5; i++) await admin().chat.send({ aid: "limited", q: `admin ${i}` });
  });

  it("admits exactly the limit from one caller among concurrent chats", async () => {
    await agent("burst", { rate_limit_rpm: 20 });
    const caller = as(anonymous("6666"));
    const outcomes = await Promise.allSettled(
      Array.from({ length: 80 }, (_, i) => caller.chat.send({ aid: "burst", q: `${i}` })),
    );
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(20);
    expect(await counted("burst")).toBe(20);
  });

  it("records a chat's use until its reply is stored, and the sweep gives back what a dead process left", async () => {
    await agent("held");
    const { db } = testDatabase();
    const reservations = async () =>
      Number((await db.select({ n: sql`count(*)` }).from(chatReservations))[0]?.n);
    // A chat that ends normally leaves no reservation.
    await as(anonymous("7777")).chat.send({ aid: "held", q: "done" });
    expect(await reservations()).toBe(0);

    // Chats opened by a process that then died: counted, reserved, never finished.
    for (let i = 0; i < 3; i++) {
      const opening = await openChat(
        { db, clock },
        { aid: "held", caller: anonymous("8888"), chatId: "default", inputChars: 1 },
        { historyMessages: 20, historyMaxChars: 10_000 },
      );
      expect(opening.outcome).toBe("opened");
    }
    expect(await counted("held")).toBe(4);
    expect(await reservations()).toBe(3);
    // Not before the bound...
    expect(await sweepReservations(db, new Date(clock.now().getTime() - 60_000))).toBe(0);
    clock.advance(61_000);
    expect(await sweepReservations(db, new Date(clock.now().getTime() - 60_000))).toBe(3);
    expect(await counted("held")).toBe(1);
    expect((await admin().agents.get({ aid: "held" })).quota.message_count_daily).toBe(1);
    // ...and only once.
    expect(await sweepReservations(db)).toBe(0);
    expect(await counted("held")).toBe(1);
  });
});
