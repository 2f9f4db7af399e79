/**
 * Work many requests of a process do alike, done for several of them at once: an item waits only
 * while `inFlight` batches are already running, so a lone request goes at once and a busy process
 * sends fewer, larger statements, each item still answered on its own.
 */
export type Batcher<I, R> = { add(item: I): Promise<R> };

export type BatcherOptions<I, R> = {
  /** Does the items' work: a result for each, in their order. */
  run: (items: I[]) => Promise<R[]>;
  /** Items of one batch share this key. */
  group: (item: I) => string;
  /** The most items a batch takes. */
  max: number;
  /** The most batches running at once. */
  inFlight: number;
  /** After a batch failed with `error`: whether each item is tried again alone (else all fail). */
  alone: (error: unknown) => boolean;
};

type Entry<I, R> = { item: I; resolve: (result: R) => void; reject: (error: unknown) => void };

export function batcher<I, R>(options: BatcherOptions<I, R>): Batcher<I, R> {
  const queue: Entry<I, R>[] = [];
  let running = 0;

  const runInto = async (entries: Entry<I, R>[]) => {
    const results = await options.run(entries.map((entry) => entry.item));
    if (results.length !== entries.length)
      throw new Error(`A batch of ${entries.length} gave ${results.length} results`);
    entries.forEach((entry, i) => {
      entry.resolve(results[i] as R);
    });
  };

  const send = async (entries: Entry<I, R>[]) => {
    try {
      await runInto(entries);
    } catch (error) {
      if (entries.length > 1 && options.alone(error)) {
        // One item's failure (its data, a deadlock) fails only that one; one at a time, as the
        // batch's own slot, so the retries keep to `inFlight` and cannot deadlock each other.
        for (const entry of entries) await runInto([entry]).catch(entry.reject);
      } else for (const entry of entries) entry.reject(error);
    }
  };

  const next = () => {
    while (running < options.inFlight && queue.length > 0) {
      const key = options.group((queue[0] as Entry<I, R>).item);
      const taken: Entry<I, R>[] = [];
      const rest: Entry<I, R>[] = [];
      for (const entry of queue)
        (taken.length < options.max && options.group(entry.item) === key ? taken : rest).push(
          entry,
        );
      queue.splice(0, queue.length, ...rest);
      running++;
      void send(taken).finally(() => {
        running--;
        next();
      });
    }
  };

  return {
    add(item) {
      return new Promise<R>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        // Not held to the turn's end: a turn is a wait under load, and a busy agent's go one by one.
        if (running < options.inFlight) next();
      });
    },
  };
}
