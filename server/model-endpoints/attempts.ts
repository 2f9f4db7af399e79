// One endpoint's attempt, and what a call's attempts add up to.

/** How each endpoint failed last, and how many times, in the order they were first tried. */
export class Failures {
  private readonly byName = new Map<string, { last: string; times: number }>();

  get none(): boolean {
    return this.byName.size === 0;
  }

  add(name: string, what: string): void {
    const seen = this.byName.get(name);
    this.byName.set(name, { last: what, times: (seen?.times ?? 0) + 1 });
  }

  sentence(): string {
    return [...this.byName]
      .map(([name, { last, times }]) => `${name} (${last}${times > 1 ? `, ${times} times` : ""})`)
      .join(", ");
  }
}

/** Between half and all of `ms`, so that many calls that failed together do not retry together. */
export const jittered = (ms: number) => Math.round(ms / 2 + (Math.random() * ms) / 2);

/**
 * One endpoint's attempt: the call's signal, and its own wait for the first token. Once answered,
 * only the call's signal bounds it; `release` lets go of the call's signal.
 */
export function startAttempt(outer: AbortSignal, waitMs: number) {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException("The endpoint sent no first token in time.", "TimeoutError"));
  }, waitMs);
  timer.unref();
  const onAbort = () => controller.abort(outer.reason);
  if (outer.aborted) onAbort();
  else outer.addEventListener("abort", onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    answered: () => clearTimeout(timer),
    release: () => {
      clearTimeout(timer);
      outer.removeEventListener("abort", onAbort);
    },
  };
}
