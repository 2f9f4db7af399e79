import { afterAll, beforeAll, beforeEach } from "vitest";
import { type FakeOpenAi, startFakeOpenAi } from "./fake-openai";

/**
 * A fake endpoint for one describe block: started before its tests, reset before each (requests
 * forgotten, `reply` as the answer), closed after. Returns a getter for it.
 */
export function useFakeOpenAi(reply = "Hello from the fake model."): () => FakeOpenAi {
  let fake: FakeOpenAi | undefined;
  beforeAll(async () => {
    fake = await startFakeOpenAi();
  });
  afterAll(() => fake?.close());
  beforeEach(() => {
    fake?.requests.splice(0);
    fake?.headers.splice(0);
    fake?.behave({ kind: "reply", text: reply });
  });
  return () => {
    if (!fake) throw new Error("the fake endpoint is not started yet");
    return fake;
  };
}
