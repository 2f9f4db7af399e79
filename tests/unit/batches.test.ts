import { describe, expect, it } from "vitest";
import { batcher } from "@/server/kit/batches";

/** A batcher whose batches are recorded and finish only when released, one at a time. */
function recorded(
  options: {
    max?: number;
    inFlight?: number;
    failWith?: (items: string[]) => Error | undefined;
  } = {},
) {
  const batches: string[][] = [];
  const waiting: Array<() => void> = [];
  const batch = batcher<string, string>({
    run: async (items) => {
      batches.push(items);
      await new Promise<void>((resolve) => waiting.push(resolve));
      const failure = options.failWith?.(items);
      if (failure) throw failure;
      return items.map((item) => `${item}!`);
    },
    group: (item) => item.slice(0, 1),
    max: options.max ?? 32,
    inFlight: options.inFlight ?? 1,
    alone: (error) => (error as Error).message === "one item's",
  });
  const releaseAll = async () => {
    // Each released batch may start the next: release until none is left waiting.
    for (let turns = 0; turns < 20; turns++) {
      await new Promise((resolve) => setImmediate(resolve));
      for (const release of waiting.splice(0)) release();
    }
  };
  return { batch, batches, releaseAll };
}

describe("batcher", () => {
  it("sends a lone item at once, and those that come while it runs together after it", async () => {
    const { batch, batches, releaseAll } = recorded();
    const first = batch.add("a1");
    // At once: not in a later turn of the event loop.
    expect(batches).toEqual([["a1"]]);
    const later = ["a2", "a3", "a4"].map((item) => batch.add(item));
    await releaseAll();
    expect(await Promise.all([first, ...later])).toEqual(["a1!", "a2!", "a3!", "a4!"]);
    expect(batches).toEqual([["a1"], ["a2", "a3", "a4"]]);
  });

  it("keeps to its most items a batch, its batches in flight and one group a batch", async () => {
    const { batch, batches, releaseAll } = recorded({ max: 2, inFlight: 2 });
    const results = ["a1", "b1", "a2", "a3", "a4", "b2"].map((item) => batch.add(item));
    // Two batches running, the rest waiting for a slot.
    expect(batches).toEqual([["a1"], ["b1"]]);
    await releaseAll();
    expect(await Promise.all(results)).toEqual(["a1!", "b1!", "a2!", "a3!", "a4!", "b2!"]);
    expect(batches).toEqual([["a1"], ["b1"], ["a2", "a3"], ["a4"], ["b2"]]);
  });

  it("tries each item of a batch that failed by one item's doing alone, and fails only that one", async () => {
    const { batch, batches, releaseAll } = recorded({
      failWith: (items) => (items.includes("a2") ? new Error("one item's") : undefined),
    });
    const results = ["a1", "a2", "a3"].map((item) =>
      batch.add(item).catch((error: Error) => error.message),
    );
    await releaseAll();
    expect(await Promise.all(results)).toEqual(["a1!", "one item's", "a3!"]);
    expect(batches).toEqual([["a1"], ["a2", "a3"], ["a2"], ["a3"]]);
  });

  it("fails every item of a batch with an error that is not one item's", async () => {
    const { batch, batches, releaseAll } = recorded({
      failWith: (items) => (items.length > 1 ? new Error("gone") : undefined),
    });
    const results = ["a1", "a2", "a3"].map((item) =>
      batch.add(item).catch((error: Error) => error.message),
    );
    await releaseAll();
    expect(await Promise.all(results)).toEqual(["a1!", "gone", "gone"]);
    expect(batches).toEqual([["a1"], ["a2", "a3"]]);
  });
});
