/**
 * A per-process cap on concurrent model calls. Past the cap a caller is refused at once (503)
 * rather than queued: a queue would only turn overload into timeouts and held quota.
 */
export class ModelSlots {
  private inUse = 0;

  constructor(readonly capacity: number) {}

  get busy(): number {
    return this.inUse;
  }

  /** A release function when a slot is free; undefined when all are taken. */
  tryAcquire(): (() => void) | undefined {
    if (this.inUse >= this.capacity) return undefined;
    this.inUse++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inUse--;
    };
  }
}
