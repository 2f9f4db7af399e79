import { describe, expect, it } from "vitest";
import { parseAgentKey } from "@/server/agent-keys";
import type { Caller } from "@/server/callers";
import { fixedClock } from "@/server/kit/clock";
import { createModelRuntime } from "@/server/model-call";
import { callerFor, problemOf, testConfig } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";
import { useFakeOpenAi } from "../helpers/use-fake-openai";

const START = "2026-11-23T12:00:00Z";
const withKey = (key: string): Caller => ({
  kind: "key",
  key: parseAgentKey(key) as NonNullable<ReturnType<typeof parseAgentKey>>,
});

/** The request log grouped by model and by key (issue 28's usage breakdown), on both databases. */
describe.each(DATABASE_KINDS)("the request breakdown on %s", (kind) => {
  const clock = fixedClock(START);
  const testDatabase = useTestDatabase(kind, { clock, start: START });
  // A real provider (the fake endpoint): its replies are the agents' models'. The built-in echo
  // answers as the model `echo`, whichever model an agent names.
  const fake = useFakeOpenAi();
  const config = testConfig({ LLM_MODEL: "house-model" });
  const model = () =>
    createModelRuntime(
      testConfig({ LLM_MODEL: "house-model", LLM_BASE_URL: fake().baseUrl, LLM_API_KEY: "sk" }),
    );
  const admin = () => callerFor(testDatabase().db, { clock, config });
  const as = (caller: Caller) =>
    callerFor(testDatabase().db, { clock, config, admin: false, caller, model: model() });

  it("groups requests, replies, tokens and cost by model and by key, most tokens first", async () => {
    await admin().agents.upsert({ aid: "mixed", rate_limit_rpm: null });
    await admin().agents.upsert({ aid: "other", model: "big-model", rate_limit_rpm: null });
    await admin().prices.set({
      model: "big-model",
      input_per_million: 1000,
      output_per_million: 1000,
    });
    const partner = (await admin().agentKeys.create({ aid: "mixed", name: "partner" })).key;
    const anonymous: Caller = { kind: "anonymous", addressHash: "abcd" };
    await as(withKey(partner)).chat.send({ aid: "mixed", q: "a longer question from the partner" });
    await as(withKey(partner)).chat.send({ aid: "mixed", q: "another" });
    await as(anonymous).chat.send({ aid: "mixed", q: "hi" });
    await as(anonymous).chat.send({ aid: "other", q: "a question for the big model, long enough" });
    await problemOf(as(anonymous).chat.send({ aid: "nobody", q: "hi" })); // 404, no model

    const byModel = await admin().requestLog.breakdown({ by: "model" });
    expect(byModel.groups.map((g) => [g.label, g.requests, g.delivered])).toEqual([
      ["house-model", 3, 3],
      ["big-model", 1, 1],
      ["no reply (refused or failed)", 1, 0],
    ]);
    expect(byModel.groups[1]?.cost).toBeGreaterThan(0);
    expect(byModel.groups[0]?.cost).toBeNull();

    const byKey = await admin().requestLog.breakdown({ by: "key", aid: "mixed" });
    expect(byKey.groups.map((g) => [g.group, g.label, g.requests])).toEqual([
      [expect.stringMatching(/^key:/), "key 'partner'", 2],
      ["addr", "anonymous addresses", 1],
    ]);
    expect(byKey.groups[0]?.input_tokens).toBeGreaterThan(byKey.groups[1]?.input_tokens ?? 0);

    // A range that ends before them has none; a bad one is a 400 naming the field.
    expect(
      (await admin().requestLog.breakdown({ by: "model", to: "2026-11-23T11:00:00Z" })).groups,
    ).toEqual([]);
    expect(
      await problemOf(
        admin().requestLog.breakdown({
          by: "model",
          from: "2026-11-24T00:00:00Z",
          to: "2026-11-23T00:00:00Z",
        }),
      ),
    ).toMatchObject({ status: 400, errors: [{ field: "to" }] });
  });
});
