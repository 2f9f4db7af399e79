import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../helpers/database-kinds";
import type { FakeOpenAi, FakeUsage } from "../helpers/fake-openai";
import { type ModelServer, startModelServer } from "../helpers/model-server";
import { type RunningServer, TEST_ADMIN_KEY } from "../helpers/server";

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}` };

/** Usage no count of tokens can be: each made the reply's row unstorable (500). */
const NONSENSE: [string, FakeUsage][] = [
  ["a negative count", { prompt_tokens: -1, completion_tokens: 5 }],
  ["a fractional count", { prompt_tokens: 10, completion_tokens: 1.5 }],
  ["a count of 2^31", { prompt_tokens: 2 ** 31, completion_tokens: 5 }],
  ["a count of 1e308", { prompt_tokens: 10, completion_tokens: 1e308 }],
  ["a count as a string", { prompt_tokens: "10", completion_tokens: "NaN" }],
];

type Usage = { input_tokens: number; output_tokens: number; estimated: boolean };

/**
 * Issue #23: a provider's usage that no count of tokens can be is taken as no usage reported:
 * the tokens are estimated (marked so), as for a provider that reports none.
 */
describe.each(DATABASE_KINDS)("usage a provider reports that cannot be right, on %s", (kind) => {
  let server: RunningServer;
  let fake: FakeOpenAi;
  let running: ModelServer | undefined;

  beforeAll(async () => {
    running = await startModelServer(kind, { LLM_MAX_RETRIES: "0" });
    ({ server, fake } = running);
    const created = await fetch(`${server.url}/agents`, {
      method: "POST",
      headers: { ...admin, "content-type": "application/json" },
      body: JSON.stringify({ aid: "counted" }),
    });
    expect(created.status).toBe(201);
  });
  afterAll(() => running?.stop());

  /** One chat in a new thread (so every prompt is the same) with the fake reporting `usage`. */
  let threads = 0;
  const chatWith = async (usage: FakeUsage | null, accept: string): Promise<Usage> => {
    fake.behave({ kind: "reply", text: "Counted.", usage });
    const response = await fetch(`${server.url}/counted/chat?q=count&chat_id=t${++threads}`, {
      headers: { accept, authorization: admin.authorization },
    });
    expect(response.status).toBe(200);
    if (accept === "application/json") return (await response.json()).usage;
    const done = (await response.text())
      .split("\n\n")
      .find((block) => /^event: done$/m.test(block));
    return JSON.parse(/^data: (.*)$/m.exec(done ?? "")?.[1] ?? "null").usage;
  };
  const tokens = async () => {
    const { quota } = await (
      await fetch(`${server.url}/agents/counted`, { headers: admin })
    ).json();
    return [quota.input_tokens_total, quota.output_tokens_total, quota.input_tokens_daily];
  };

  describe.each(["application/json", "text/event-stream"])("in %s", (accept) => {
    it.each(NONSENSE)("estimates the tokens when the usage has %s", async (_, usage) => {
      const unreported = await chatWith(null, accept);
      expect(unreported.estimated).toBe(true);
      const [inBefore, outBefore, dailyBefore] = await tokens();
      const counted = await chatWith(usage, accept);
      expect(counted).toEqual(unreported);
      const { messages } = await (
        await fetch(`${server.url}/agents/counted/threads/t${threads}/messages`, { headers: admin })
      ).json();
      expect(messages[1].usage).toEqual(counted);
      // The quota's token counters took the estimate, as they do for usage not reported.
      expect(await tokens()).toEqual([
        (inBefore as number) + counted.input_tokens,
        (outBefore as number) + counted.output_tokens,
        (dailyBefore as number) + counted.input_tokens,
      ]);
    });
  });
});
