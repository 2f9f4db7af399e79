/**
 * Runs work one at a time per key, in the order it arrived; work under other keys runs at once.
 * A key holds memory only while work of it runs or waits.
 */
export class KeyedGate {
  private readonly waiting = new Map<string, Array<() => void>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const queue = this.waiting.get(key);
    if (queue) await new Promise<void>((resolve) => queue.push(resolve));
    else this.waiting.set(key, []);
    try {
      return await work();
    } finally {
      const next = this.waiting.get(key)?.shift();
      if (next) next();
      else this.waiting.delete(key);
    }
  }

  /** Keys with work running or waiting. */
  get size(): number {
    return this.waiting.size;
  }
}
