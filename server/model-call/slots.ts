/**
 * A per-process cap on concurrent model calls. Chats that find no slot are refused at once (503):
 * a queue would only turn overload into timeouts and held quota. The scheduler waits, bounded.
 */
export class ModelSlots {
  private inUse = 0;
  private closed = false;
  private readonly waiters: Array<() => void> = [];
  private readonly idleListeners = new Set<() => void>();

  constructor(readonly capacity: number) {}

  get busy(): number {
    return this.inUse;
  }

  get closing(): boolean {
    return this.closed;
  }

  /** A release function when a slot is free; undefined when all are taken or closing. */
  tryAcquire(): (() => void) | undefined {
    if (this.closed || this.inUse >= this.capacity) return undefined;
    this.inUse++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inUse--;
      this.waiters.shift()?.();
      if (this.inUse === 0) for (const listener of this.idleListeners) listener();
    };
  }

  /** Waits up to `timeoutMs` for a slot; undefined if none came (or the slots closed). */
  acquire(timeoutMs: number): Promise<(() => void) | undefined> {
    const release = this.tryAcquire();
    if (release || this.closed) return Promise.resolve(release);
    return new Promise((resolve) => {
      const waiter = () => {
        clearTimeout(timer);
        resolve(this.tryAcquire());
      };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        resolve(undefined);
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** Refuses every new call from now on, and wakes the waiters (they get nothing). */
  close(): void {
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** Resolves true once no call is in flight, or false after `timeoutMs`. */
  drained(timeoutMs: number): Promise<boolean> {
    if (this.inUse === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (idle: boolean) => {
        clearTimeout(timer);
        this.idleListeners.delete(onIdle);
        resolve(idle);
      };
      const onIdle = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.idleListeners.add(onIdle);
    });
  }
}
