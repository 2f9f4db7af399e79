/**
 * The fake model's behaviour is chosen by the request's `model`, so the service and the baseline
 * need no knob of their own: `fake-t200-w20-l1000` answers 200 tokens in 20 network writes over
 * 1,000 ms (see `tokens` in tests/helpers/fake-openai.ts).
 */
export type FakeModel = { tokens: number; writes: number; latencyMs: number };

export const fakeModelName = ({ tokens, writes, latencyMs }: FakeModel) =>
  `fake-t${tokens}-w${writes}-l${latencyMs}`;

export function parseFakeModelName(model: string): FakeModel | undefined {
  const match = /^fake-t(\d+)-w(\d+)-l(\d+)$/.exec(model);
  if (!match) return undefined;
  return { tokens: Number(match[1]), writes: Number(match[2]), latencyMs: Number(match[3]) };
}

/** The model that asks for one tool call (`add`) before it answers (bench/tool-rows.ts). */
export const FAKE_TOOL_MODEL = "fake-tool";
