import { settlesWithin } from "@/server/kit/settles-within";
import { log } from "@/server/observability";

/**
 * A worker's claim loop (the scheduler's runs, the webhook sender's deliveries): every `everyMs`
 * a pass claims until nothing more is due, at most `concurrency` in flight. Any number of loops in
 * any number of processes share the work, since the claim decides who does what in the database.
 */
export type ClaimLoopOptions<T> = {
  everyMs: number;
  concurrency: number;
  /** The fewest free places worth a claim while items are in flight (a claim costs round trips). */
  minClaim: number;
  failedPass: string;
  beforePass?: () => Promise<void>;
  /** `more`: false when the claim came back short (nothing more due, or another claim has it). */
  claim(room: number): Promise<{ claimed: T[]; more: boolean }>;
  /** Does one item. Never rejects: it records or logs its own failure. */
  work(item: T): Promise<void>;
};

export class ClaimLoop<T> {
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;
  private passing: Promise<unknown> = Promise.resolve();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly options: ClaimLoopOptions<T>) {}

  start(): void {
    const loop = async () => {
      this.passing = this.pass().catch((error: unknown) => {
        log.error({ err: error }, this.options.failedPass);
      });
      await this.passing;
      if (!this.stopping) this.timer = setTimeout(loop, this.options.everyMs);
    };
    void loop();
  }

  /** Claims until nothing more is due; returns how many (`idle()` waits for them). */
  async pass(): Promise<number> {
    const { concurrency, minClaim } = this.options;
    await this.options.beforePass?.();
    let claimed = 0;
    while (!this.stopping) {
      const room = concurrency - this.inFlight.size;
      if (room < minClaim && this.inFlight.size > 0) {
        await Promise.race(this.inFlight);
        continue;
      }
      const { claimed: items, more } = await this.options.claim(room);
      for (const item of items) this.track(item);
      claimed += items.length;
      if (!more) break;
    }
    return claimed;
  }

  async idle(): Promise<void> {
    // `work` never rejects, so this waits for every item.
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }

  /** Stops claiming and waits up to `graceMs` for the items in flight; true if all finished. */
  async stop(graceMs: number): Promise<boolean> {
    this.stopping = true;
    clearTimeout(this.timer);
    // The pass in progress is bounded by the grace too: a claim may be waiting on the database.
    return settlesWithin(
      this.passing.then(() => this.idle()),
      graceMs,
    );
  }

  private track(item: T): void {
    const done: Promise<void> = this.options.work(item).finally(() => this.inFlight.delete(done));
    this.inFlight.add(done);
  }
}
